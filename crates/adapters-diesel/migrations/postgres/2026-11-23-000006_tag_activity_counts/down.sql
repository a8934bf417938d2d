ALTER TABLE tags DROP COLUMN activity_count;
