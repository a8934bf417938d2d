-- Fair event delivery (docs/events.md, "Fairness"). `served_at`: when a worker last claimed
-- this endpoint's deliveries; the worker looks at the least recently served endpoints first, so
-- a tenant with many busy endpoints cannot keep another's out of every pass. `paused_until`:
-- the circuit breaker, open after a failure of an endpoint already failing; its deliveries are
-- not claimed before then, so a receiver that hangs stops holding delivery slots.
ALTER TABLE webhook_endpoints ADD COLUMN served_at BIGINT NOT NULL DEFAULT 0;
ALTER TABLE webhook_endpoints ADD COLUMN paused_until BIGINT;
CREATE INDEX webhook_endpoints_rotation ON webhook_endpoints(served_at, id) WHERE disabled_at IS NULL;
