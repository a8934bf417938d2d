-- Activity search (`search=`) first finds the agent's contacts whose name or channel digits hold
-- the fragment, then their activities by the (agent, contact) key. These indexes hold everything
-- both scans read, so they can be index-only scans of narrow entries instead of reads of every
-- contact row of the agent.
CREATE INDEX contacts_agent_name_search ON contacts(agent_id, name_search, id);
CREATE INDEX contact_channels_agent_digits ON contact_channels(agent_id, digits, contact_id);
