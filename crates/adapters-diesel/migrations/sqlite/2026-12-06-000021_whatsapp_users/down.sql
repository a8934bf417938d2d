DROP INDEX contact_channels_agent_user;
ALTER TABLE contact_channels DROP COLUMN username;
ALTER TABLE contact_channels DROP COLUMN parent_user_id;
ALTER TABLE contact_channels DROP COLUMN user_id;
