ALTER TABLE activities DROP COLUMN tag_list;
ALTER TABLE activities DROP COLUMN channel_list;
ALTER TABLE activities DROP COLUMN contact_name;
