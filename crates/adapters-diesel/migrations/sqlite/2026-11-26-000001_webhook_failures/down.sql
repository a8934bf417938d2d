DROP INDEX webhook_events_failed;
ALTER TABLE webhook_events DROP COLUMN failed_at;
