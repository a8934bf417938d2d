DROP INDEX activities_first_response_due;
ALTER TABLE activities DROP COLUMN first_response_missed_at;
ALTER TABLE activities DROP COLUMN first_responded_at;
ALTER TABLE activities DROP COLUMN first_response_due_at;
ALTER TABLE activities DROP COLUMN first_response_opened_at;
DROP TABLE first_response_targets;
