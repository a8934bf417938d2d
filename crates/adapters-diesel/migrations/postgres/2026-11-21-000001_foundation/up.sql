-- Times are BIGINT milliseconds since the Unix epoch (UTC), ids and JSON are TEXT:
-- the types both backends share, so one diesel schema serves both.
CREATE TABLE agents (
    id TEXT PRIMARY KEY NOT NULL,
    name TEXT NOT NULL,
    created_at BIGINT NOT NULL
);

CREATE TABLE api_keys (
    id TEXT PRIMARY KEY NOT NULL,
    agent_id TEXT NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
    kind TEXT NOT NULL,
    key_hash TEXT NOT NULL UNIQUE,
    hint TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    revoked_at BIGINT
);
CREATE INDEX api_keys_agent ON api_keys(agent_id, created_at);

CREATE TABLE tags (
    id TEXT PRIMARY KEY NOT NULL,
    agent_id TEXT NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    name_key TEXT NOT NULL,
    color TEXT NOT NULL,
    description TEXT,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    UNIQUE (agent_id, name_key)
);

CREATE TABLE contacts (
    id TEXT PRIMARY KEY NOT NULL,
    agent_id TEXT NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
    profile_name TEXT NOT NULL,
    name_search TEXT NOT NULL,
    email TEXT,
    notes TEXT,
    custom_attributes TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
);
CREATE INDEX contacts_agent_created ON contacts(agent_id, created_at DESC, id DESC);

CREATE TABLE contact_channels (
    agent_id TEXT NOT NULL,
    channel_type TEXT NOT NULL,
    channel_id TEXT NOT NULL,
    contact_id TEXT NOT NULL REFERENCES contacts(id) ON DELETE CASCADE,
    digits TEXT NOT NULL,
    position INTEGER NOT NULL,
    PRIMARY KEY (agent_id, channel_type, channel_id)
);
CREATE INDEX contact_channels_contact ON contact_channels(contact_id, position);

CREATE TABLE activities (
    id TEXT PRIMARY KEY NOT NULL,
    agent_id TEXT NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
    contact_id TEXT NOT NULL REFERENCES contacts(id) ON DELETE CASCADE,
    status TEXT NOT NULL,
    assigned_to TEXT,
    last_inbound_at BIGINT,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    UNIQUE (agent_id, contact_id)
);
CREATE INDEX activities_agent_updated ON activities(agent_id, updated_at DESC, id DESC);
CREATE INDEX activities_agent_status_updated ON activities(agent_id, status, updated_at DESC, id DESC);

CREATE TABLE activity_tags (
    activity_id TEXT NOT NULL REFERENCES activities(id) ON DELETE CASCADE,
    tag_id TEXT NOT NULL REFERENCES tags(id) ON DELETE CASCADE,
    created_at BIGINT NOT NULL,
    PRIMARY KEY (activity_id, tag_id)
);
CREATE INDEX activity_tags_tag ON activity_tags(tag_id);
