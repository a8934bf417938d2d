ALTER TABLE activities DROP COLUMN message_count;
