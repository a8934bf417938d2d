-- How many contacts each agent has, kept in the transaction that inserts a contact (contacts are
-- never deleted), so the contacts list answers its `pagination.total` with one row read instead
-- of counting the agent's contacts on every page (most of such a request with 10,000 contacts).
ALTER TABLE agents ADD COLUMN contact_count BIGINT NOT NULL DEFAULT 0;
UPDATE agents SET contact_count = (SELECT COUNT(*) FROM contacts WHERE contacts.agent_id = agents.id);
