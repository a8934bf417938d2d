-- The delivery worker claims each endpoint's due deliveries on their own (docs/events.md), so
-- one endpoint's backlog never stands before another's: due rows by endpoint, then time.
CREATE INDEX event_deliveries_endpoint_due ON event_deliveries(endpoint_id, next_attempt_at) WHERE next_attempt_at IS NOT NULL;
