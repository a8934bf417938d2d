ALTER TABLE messages DROP COLUMN deleted_at;
ALTER TABLE webhook_events DROP COLUMN platform;
ALTER TABLE lines DROP COLUMN channel_type;
ALTER TABLE lines RENAME COLUMN account_id TO phone_number_id;
