ALTER TABLE lines DROP COLUMN messages_per_second;
DROP TABLE scheduled_sends;
ALTER TABLE messages DROP COLUMN send_at;
