-- Email lines: a mailbox's servers and login beside the address (account_id) and password
-- (access_token). A sandbox email line has no servers. inbound_token is the SHA-256 (hex) of
-- the token providers that forward raw mail present; NULL on other platforms.
ALTER TABLE lines ADD COLUMN send_url TEXT;
ALTER TABLE lines ADD COLUMN receive_url TEXT;
ALTER TABLE lines ADD COLUMN username TEXT;
ALTER TABLE lines ADD COLUMN inbound_token TEXT;

-- Files Parley keeps for messages (email attachments): written once, read by the media
-- endpoint. The id is derived from the message it came in, so it is unique per agent.
CREATE TABLE files (
    agent_id TEXT NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
    id TEXT NOT NULL,
    filename TEXT,
    mime_type TEXT NOT NULL,
    bytes BYTEA NOT NULL,
    created_at BIGINT NOT NULL,
    PRIMARY KEY (agent_id, id)
);

-- Where each polled mailbox's reader is: UIDs are comparable only under one UIDVALIDITY.
-- claimed_by/lease_until: the instance polling it now (one poller per mailbox across instances).
CREATE TABLE mailbox_cursors (
    line_id TEXT PRIMARY KEY NOT NULL REFERENCES lines(id) ON DELETE CASCADE,
    uid_validity BIGINT NOT NULL DEFAULT 0,
    last_uid BIGINT NOT NULL DEFAULT 0,
    claimed_by TEXT,
    lease_until BIGINT NOT NULL DEFAULT 0,
    updated_at BIGINT NOT NULL
);
