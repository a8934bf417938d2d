-- The kept counts every new conversation adds to (an agent's activities by status, its
-- contacts) split over several rows per agent, summed on read. With one row each, concurrent
-- first messages of new contacts queued on those two rows, each holding them until its commit
-- was flushed (PostgreSQL; SQLite's writers run one at a time and keep writing shard 0).
ALTER TABLE activity_counts ADD COLUMN shard INTEGER NOT NULL DEFAULT 0;
ALTER TABLE activity_counts DROP CONSTRAINT activity_counts_pkey;
ALTER TABLE activity_counts ADD PRIMARY KEY (agent_id, status, shard);

CREATE TABLE contact_counts (
    agent_id TEXT NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
    shard INTEGER NOT NULL,
    count BIGINT NOT NULL,
    PRIMARY KEY (agent_id, shard)
);
INSERT INTO contact_counts (agent_id, shard, count) SELECT id, 0, contact_count FROM agents;
ALTER TABLE agents DROP COLUMN contact_count;
