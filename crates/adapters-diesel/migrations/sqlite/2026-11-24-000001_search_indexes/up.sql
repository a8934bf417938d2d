-- Activity search (`search=`) first finds the agent's contacts whose name or channel digits hold
-- the fragment, then their activities by the (agent, contact) key. Both scans read only these
-- indexes, never the rows: every contact of the agent is still read, but as narrow index entries.
CREATE INDEX contacts_agent_name_search ON contacts(agent_id, name_search, id);
CREATE INDEX contact_channels_agent_digits ON contact_channels(agent_id, digits, contact_id);
