-- Who a WhatsApp contact is beside their phone: the business-scoped user id the platform names
-- every user by (the only id of a user who hides their number behind a username), the parent id
-- of a business portfolio, and the username. An inbound message finds its contact by user id
-- first, so the id is unique per agent; a partial index, as most channels have none.
ALTER TABLE contact_channels ADD COLUMN user_id TEXT;
ALTER TABLE contact_channels ADD COLUMN parent_user_id TEXT;
ALTER TABLE contact_channels ADD COLUMN username TEXT;
CREATE UNIQUE INDEX contact_channels_agent_user ON contact_channels(agent_id, user_id) WHERE user_id IS NOT NULL;
