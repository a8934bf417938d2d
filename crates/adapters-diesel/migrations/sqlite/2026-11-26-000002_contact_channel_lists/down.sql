ALTER TABLE contacts DROP COLUMN channel_list;
