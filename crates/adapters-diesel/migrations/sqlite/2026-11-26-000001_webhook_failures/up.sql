-- A delivery whose processing cannot succeed stops being retried: `failed_at` is when Parley
-- gave up on it (its `next_attempt_at` is then NULL, so it is neither due nor in the backlog).
-- `parley webhooks failed` lists such deliveries and `parley webhooks retry` puts them back.
ALTER TABLE webhook_events ADD COLUMN failed_at BIGINT;
CREATE INDEX webhook_events_failed ON webhook_events(failed_at);
