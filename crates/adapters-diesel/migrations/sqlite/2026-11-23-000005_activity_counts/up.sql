-- How many activities each agent has in each status, kept in the same transactions that insert
-- activities or change their status, so a list answers its `pagination.total` with one row read
-- instead of counting the agent's activities on every request.
CREATE TABLE activity_counts (
    agent_id TEXT NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
    status TEXT NOT NULL,
    count BIGINT NOT NULL,
    PRIMARY KEY (agent_id, status)
);
INSERT INTO activity_counts (agent_id, status, count) SELECT agent_id, status, COUNT(*) FROM activities GROUP BY agent_id, status;
