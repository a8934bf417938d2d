-- Reports. Counts (INTEGER: a report adds them up as BIGINT on either backend) per quarter hour of UTC (`slot`, milliseconds), per assignee ('' when
-- unassigned) and channel type ('' for a conversation with no message), added to by each
-- message's insert, scheduled start and close in its own transaction; a report of months reads
-- a few thousand of these instead of every message. `shard` splits a hot slot over rows
-- (count_shards.rs), so one agent's concurrent messages do not queue on one row.
CREATE TABLE report_counts (
    agent_id TEXT NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
    slot BIGINT NOT NULL,
    member TEXT NOT NULL,
    channel_type TEXT NOT NULL,
    shard INTEGER NOT NULL,
    opened INTEGER NOT NULL,
    closed INTEGER NOT NULL,
    messages_in INTEGER NOT NULL,
    messages_out INTEGER NOT NULL,
    PRIMARY KEY (agent_id, slot, member, channel_type, shard)
);

-- One row per first response and per resolution, with its start and end: reports turn each
-- into business seconds when they read it (the agent's hours may have changed since). Kept
-- when a contact is erased: they hold no one's words, and past reports stay as they were.
-- The key carries the rest, so a report's range is read from the index alone.
CREATE TABLE report_spans (
    agent_id TEXT NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
    ended_at BIGINT NOT NULL,
    activity_id TEXT NOT NULL,
    kind TEXT NOT NULL,
    started_at BIGINT NOT NULL,
    member TEXT,
    channel_type TEXT,
    PRIMARY KEY (agent_id, ended_at, activity_id, kind) INCLUDE (started_at, member, channel_type)
);
