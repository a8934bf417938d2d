ALTER TABLE activities DROP COLUMN unread_count;
