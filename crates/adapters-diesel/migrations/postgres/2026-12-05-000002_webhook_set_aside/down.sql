DROP INDEX webhook_events_set_aside;
ALTER TABLE webhook_events DROP COLUMN set_aside;
