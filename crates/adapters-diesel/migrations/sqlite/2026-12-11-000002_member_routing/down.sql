DROP INDEX activities_assignee_status;
ALTER TABLE members DROP COLUMN last_assigned_at;
ALTER TABLE members DROP COLUMN max_open;
