-- First response: each agent's target (minutes of business time; no row: no target), and on
-- each activity its clock: when the contact last opened it, when the first answer falls due,
-- when it came, and when its miss was announced (once per opening).
CREATE TABLE first_response_targets (
    agent_id TEXT PRIMARY KEY NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
    minutes INTEGER NOT NULL,
    updated_at BIGINT NOT NULL
);

ALTER TABLE activities ADD COLUMN first_response_opened_at BIGINT;
ALTER TABLE activities ADD COLUMN first_response_due_at BIGINT;
ALTER TABLE activities ADD COLUMN first_responded_at BIGINT;
ALTER TABLE activities ADD COLUMN first_response_missed_at BIGINT;

-- The misses worker reads the open, unanswered, unannounced conversations in due order: only
-- those are in the index, so it stays as small as the conversations waiting now.
CREATE INDEX activities_first_response_due ON activities (first_response_due_at)
    WHERE first_responded_at IS NULL AND first_response_missed_at IS NULL AND first_response_due_at IS NOT NULL;
