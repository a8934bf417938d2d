-- A team's saved answers (`/v1/canned_responses`), listed by short code: the unique key is the
-- list's order. `text_key` is the text lowercased (Rust's folding, as the search fragment's),
-- which `search` scans with the short code; the per-agent cap (1,000) bounds that scan.
CREATE TABLE canned_responses (
    id TEXT PRIMARY KEY NOT NULL,
    agent_id TEXT NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
    short_code TEXT NOT NULL,
    text TEXT NOT NULL,
    text_key TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    UNIQUE (agent_id, short_code)
);
