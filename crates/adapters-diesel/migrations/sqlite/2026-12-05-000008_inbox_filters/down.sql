ALTER TABLE activity_counts DROP COLUMN unassigned;
DROP INDEX contact_channels_agent_type;
DROP INDEX activities_agent_unread_updated;
DROP INDEX activities_agent_assignee_updated;
