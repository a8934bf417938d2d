DROP INDEX webhook_events_due;
CREATE INDEX webhook_events_due ON webhook_events(next_attempt_at);
DROP INDEX webhook_events_failed;
CREATE INDEX webhook_events_failed ON webhook_events(failed_at);
