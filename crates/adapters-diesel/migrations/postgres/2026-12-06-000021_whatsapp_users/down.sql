DROP INDEX contact_channels_agent_user;
ALTER TABLE contact_channels DROP COLUMN username, DROP COLUMN parent_user_id, DROP COLUMN user_id;
