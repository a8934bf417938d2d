DROP TABLE activity_tags;
DROP TABLE activities;
DROP TABLE contact_channels;
DROP TABLE contacts;
DROP TABLE tags;
DROP TABLE api_keys;
DROP TABLE agents;
