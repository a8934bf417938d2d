ALTER TABLE agents DROP COLUMN contact_count;
