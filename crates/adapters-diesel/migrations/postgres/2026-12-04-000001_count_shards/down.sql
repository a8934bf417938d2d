ALTER TABLE agents ADD COLUMN contact_count BIGINT NOT NULL DEFAULT 0;
UPDATE agents SET contact_count = (SELECT COALESCE(SUM(count), 0) FROM contact_counts WHERE contact_counts.agent_id = agents.id);
DROP TABLE contact_counts;

CREATE TEMP TABLE activity_totals AS SELECT agent_id, status, SUM(count)::BIGINT AS count FROM activity_counts GROUP BY agent_id, status;
DELETE FROM activity_counts;
ALTER TABLE activity_counts DROP CONSTRAINT activity_counts_pkey;
ALTER TABLE activity_counts DROP COLUMN shard;
ALTER TABLE activity_counts ADD PRIMARY KEY (agent_id, status);
INSERT INTO activity_counts (agent_id, status, count) SELECT agent_id, status, count FROM activity_totals;
DROP TABLE activity_totals;
