-- Away messages. `business_hours.away`: whether the agent's hours hold an away message, so the
-- outbox queues its contacts' messages for the rule engine (which sends it) with an index
-- probe, without reading the document. `activities.away_sent_at`: when the contact (one
-- conversation each) was last sent it; a compare-and-set on it sends it once per 12 hours,
-- whichever engine gets there first.
ALTER TABLE business_hours ADD COLUMN away BOOLEAN NOT NULL DEFAULT FALSE;
ALTER TABLE activities ADD COLUMN away_sent_at BIGINT;
