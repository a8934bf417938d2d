-- WhatsApp lines: webhooks find a line by its phone number id, so it is unique across agents.
-- access_token NULL means a sandbox line (no network).
CREATE TABLE lines (
    id TEXT PRIMARY KEY NOT NULL,
    agent_id TEXT NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
    phone_number_id TEXT NOT NULL UNIQUE,
    waba_id TEXT NOT NULL,
    access_token TEXT,
    created_at BIGINT NOT NULL
);
CREATE INDEX lines_agent ON lines(agent_id, created_at, id);

-- Templates as the platform lists them, per line; id is the platform's id, which lines sharing
-- a business account share too. components is JSON.
CREATE TABLE templates (
    agent_id TEXT NOT NULL,
    line_id TEXT NOT NULL REFERENCES lines(id) ON DELETE CASCADE,
    id TEXT NOT NULL,
    name TEXT NOT NULL,
    language TEXT NOT NULL,
    status TEXT NOT NULL,
    category TEXT NOT NULL,
    components TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    PRIMARY KEY (agent_id, line_id, id)
);
CREATE INDEX templates_listing ON templates(agent_id, name, language);
CREATE INDEX templates_by_id ON templates(agent_id, id);

-- One row per template send made under a campaign key; status webhooks find it by message id.
CREATE TABLE executions (
    id TEXT PRIMARY KEY NOT NULL,
    agent_id TEXT NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
    campaign_key TEXT NOT NULL,
    campaign_name TEXT NOT NULL,
    recipient TEXT NOT NULL,
    template_id TEXT NOT NULL,
    -- NULL when the platform refused the send outright (NULLs never clash in the UNIQUE below).
    message_id TEXT,
    status TEXT NOT NULL,
    error_message TEXT,
    sent_at BIGINT,
    delivered_at BIGINT,
    read_at BIGINT,
    updated_at BIGINT NOT NULL,
    UNIQUE (agent_id, message_id)
);
CREATE INDEX executions_campaign ON executions(agent_id, campaign_key, updated_at, id);

-- Idempotency-Key records: the first request's fingerprint, and its answer once it has one.
CREATE TABLE idempotency_keys (
    agent_id TEXT NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
    key TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    response_status INTEGER,
    response_body TEXT,
    created_at BIGINT NOT NULL,
    PRIMARY KEY (agent_id, key)
);

-- Webhook deliveries stored raw before they are answered, processed (and retried) after.
CREATE TABLE webhook_events (
    id TEXT PRIMARY KEY NOT NULL,
    body TEXT NOT NULL,
    received_at BIGINT NOT NULL,
    attempts INTEGER NOT NULL,
    last_error TEXT,
    next_attempt_at BIGINT,
    processed_at BIGINT
);
CREATE INDEX webhook_events_due ON webhook_events(next_attempt_at);
