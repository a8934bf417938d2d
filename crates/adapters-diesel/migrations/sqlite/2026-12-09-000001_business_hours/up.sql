-- Each agent's business hours, one set per agent (none: always open), as the API's document
-- `{"timezone", "week", "closed_dates", "away_message"}`: read whole, replaced whole, and
-- checked again when read.
CREATE TABLE business_hours (
    agent_id TEXT PRIMARY KEY NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
    document TEXT NOT NULL,
    updated_at BIGINT NOT NULL
);
