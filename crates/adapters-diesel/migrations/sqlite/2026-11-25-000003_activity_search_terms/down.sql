DROP TABLE activity_search_terms;
CREATE INDEX contacts_agent_name_search ON contacts(agent_id, name_search, id);
CREATE INDEX contact_channels_agent_digits ON contact_channels(agent_id, digits, contact_id);
