-- An activity's timeline: every message in (from the contact) and out (from the agent).
-- `content` is the message's content as one JSON object (`MessageContent::to_json`, the
-- platform's message shape), read back with `MessageContent::from_json`; `type` and `text`
-- (what a person reads, uncut) are derived from it and kept beside it for lists and a future
-- search. `referral` is the platform's JSON object, as received.
CREATE TABLE messages (
    id TEXT PRIMARY KEY NOT NULL,
    agent_id TEXT NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
    activity_id TEXT NOT NULL REFERENCES activities(id) ON DELETE CASCADE,
    direction TEXT NOT NULL,
    type TEXT NOT NULL,
    content TEXT NOT NULL,
    text TEXT,
    reply_to TEXT,
    -- The platform's `wamid.…`. NULL when the platform refused an outbound send outright; NULLs
    -- never clash in the UNIQUE below, which makes a webhook the platform delivers twice store
    -- its message once (`INSERT … ON CONFLICT DO NOTHING`).
    platform_message_id TEXT,
    channel_type TEXT NOT NULL,
    channel_id TEXT NOT NULL,
    line_id TEXT,
    status TEXT NOT NULL,
    error_message TEXT,
    template_id TEXT,
    campaign_key TEXT,
    cart_code TEXT,
    referral TEXT,
    created_at BIGINT NOT NULL,
    sent_at BIGINT,
    delivered_at BIGINT,
    read_at BIGINT,
    updated_at BIGINT NOT NULL,
    UNIQUE (agent_id, platform_message_id)
);
-- A timeline page is one range, newest first, and its total is counted from the index alone:
-- with `agent_id` in it, no row is read to check whose it is (a 1,000-message timeline's
-- count read 1,000 rows without it, 80% of a page's time).
CREATE INDEX messages_timeline ON messages(agent_id, activity_id, created_at DESC, id DESC);
-- Polling a timeline for what changed (`since`), counted from the index alone as well.
CREATE INDEX messages_changes ON messages(agent_id, activity_id, updated_at);
-- The carts an activity's messages carry: only the few messages that carry one.
CREATE INDEX messages_carts ON messages(activity_id, cart_code) WHERE cart_code IS NOT NULL;
-- The newest inbound message of an activity (the line a reply goes out through).
CREATE INDEX messages_inbound ON messages(activity_id, direction, created_at DESC, id DESC);

-- What an activity shows of its newest message (by created_at, then id), kept on its row so a
-- page or a get reads no message: written in the transaction that inserts a newer message.
-- `last_message_text` is already cut to `MessageSummary::TEXT_CHARS`. NULL: no message yet.
ALTER TABLE activities ADD COLUMN last_message_id TEXT;
ALTER TABLE activities ADD COLUMN last_message_direction TEXT;
ALTER TABLE activities ADD COLUMN last_message_type TEXT;
ALTER TABLE activities ADD COLUMN last_message_text TEXT;
ALTER TABLE activities ADD COLUMN last_message_at BIGINT;
