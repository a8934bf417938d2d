ALTER TABLE agents ADD COLUMN contact_count BIGINT NOT NULL DEFAULT 0;
UPDATE agents SET contact_count = (SELECT COALESCE(SUM(count), 0) FROM contact_counts WHERE contact_counts.agent_id = agents.id);
DROP TABLE contact_counts;

CREATE TABLE activity_counts_by_status (
    agent_id TEXT NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
    status TEXT NOT NULL,
    count BIGINT NOT NULL,
    PRIMARY KEY (agent_id, status)
);
INSERT INTO activity_counts_by_status (agent_id, status, count) SELECT agent_id, status, SUM(count) FROM activity_counts GROUP BY agent_id, status;
DROP TABLE activity_counts;
ALTER TABLE activity_counts_by_status RENAME TO activity_counts;
