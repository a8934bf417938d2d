-- Event webhooks (docs/events.md). An event is written in the transaction that makes the
-- change it reports, and so is one delivery row per endpoint subscribed to its type at that
-- moment (an outbox): a change that rolls back emits nothing, a committed one is never lost.

-- Where an agent's events go. `events` is `*` or the subscribed type names between commas
-- (`,contact.created,message.received,`), so the outbox's fan-out matches one type with
-- LIKE on the agent's few endpoints. `secret` signs every delivery; after a rotation
-- `previous_secret` signs beside it until `previous_expires_at`. `failing_since`: the first
-- failure since the last success (an endpoint failing for 3 days is disabled).
CREATE TABLE webhook_endpoints (
    id TEXT PRIMARY KEY NOT NULL,
    agent_id TEXT NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
    url TEXT NOT NULL,
    description TEXT,
    events TEXT NOT NULL,
    -- NULL while enabled; when and why it was turned off (by its owner, or after 3 days of
    -- nothing but failures).
    disabled_at BIGINT,
    disabled_reason TEXT,
    secret TEXT NOT NULL,
    previous_secret TEXT,
    previous_expires_at BIGINT,
    failing_since BIGINT,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
);
CREATE INDEX webhook_endpoints_agent ON webhook_endpoints(agent_id, created_at DESC, id DESC);

-- Every event of the last 30 days. `body` is the event exactly as delivered and listed
-- (`{"id","type","created_at","data":{"object"}}`): the bytes each delivery signs.
CREATE TABLE events (
    id TEXT PRIMARY KEY NOT NULL,
    agent_id TEXT NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
    type TEXT NOT NULL,
    body TEXT NOT NULL,
    created_at BIGINT NOT NULL
);
CREATE INDEX events_newest ON events(agent_id, created_at DESC, id DESC);
CREATE INDEX events_of_type ON events(agent_id, type, created_at DESC, id DESC);
-- Retention deletes by age across agents.
CREATE INDEX events_age ON events(created_at);

-- One event to one endpoint. `next_attempt_at` is when it is due (a claim moves it past the
-- claim's lease), NULL once delivered or given up; only those rows are indexed.
CREATE TABLE event_deliveries (
    event_id TEXT NOT NULL REFERENCES events(id) ON DELETE CASCADE,
    endpoint_id TEXT NOT NULL REFERENCES webhook_endpoints(id) ON DELETE CASCADE,
    agent_id TEXT NOT NULL,
    event_created_at BIGINT NOT NULL,
    attempts INTEGER NOT NULL,
    next_attempt_at BIGINT,
    delivered_at BIGINT,
    given_up_at BIGINT,
    PRIMARY KEY (event_id, endpoint_id)
);
CREATE INDEX event_deliveries_due ON event_deliveries(next_attempt_at) WHERE next_attempt_at IS NOT NULL;
CREATE INDEX event_deliveries_endpoint ON event_deliveries(endpoint_id);

-- Each attempt, for `GET /v1/webhook_endpoints/:id/deliveries`: what the receiver answered
-- (`response_status`, NULL when it never answered), how long it took, why it failed, and when
-- the next attempt is due (NULL: none).
CREATE TABLE delivery_attempts (
    event_id TEXT NOT NULL,
    endpoint_id TEXT NOT NULL,
    attempt INTEGER NOT NULL,
    attempted_at BIGINT NOT NULL,
    response_status INTEGER,
    duration_ms BIGINT NOT NULL,
    error TEXT,
    next_attempt_at BIGINT,
    PRIMARY KEY (event_id, endpoint_id, attempt),
    FOREIGN KEY (event_id, endpoint_id) REFERENCES event_deliveries(event_id, endpoint_id) ON DELETE CASCADE
);
CREATE INDEX delivery_attempts_endpoint ON delivery_attempts(endpoint_id, attempted_at DESC);
