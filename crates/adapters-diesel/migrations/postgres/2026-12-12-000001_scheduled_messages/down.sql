DROP TABLE scheduled_sends;
ALTER TABLE messages DROP COLUMN send_at;
