DROP TABLE mailbox_cursors;
DROP TABLE files;
ALTER TABLE lines DROP COLUMN inbound_token;
ALTER TABLE lines DROP COLUMN username;
ALTER TABLE lines DROP COLUMN receive_url;
ALTER TABLE lines DROP COLUMN send_url;
