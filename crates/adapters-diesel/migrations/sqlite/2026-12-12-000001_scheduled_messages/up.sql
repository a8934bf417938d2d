-- Scheduled messages: the timeline entry is a message (`status = 'scheduled'`, `send_at` kept
-- once it has gone out); what sending it needs waits here beside it, written in the same
-- transaction. A worker claims due rows by moving `claimed_until` past its lease; the one that
-- moves the message from 'scheduled' to 'sending' deletes the row and sends it, so a claim
-- whose worker stopped is taken again and none goes out twice.
ALTER TABLE messages ADD COLUMN send_at BIGINT;

CREATE TABLE scheduled_sends (
    message_id TEXT PRIMARY KEY NOT NULL REFERENCES messages(id) ON DELETE CASCADE,
    agent_id TEXT NOT NULL,
    activity_id TEXT NOT NULL,
    -- The line it goes out through: its pace is waited for before the message is started.
    line_id TEXT NOT NULL,
    send_at BIGINT NOT NULL,
    claimed_until BIGINT NOT NULL DEFAULT 0,
    -- The send as it was asked (`ScheduledRequest`'s document): a reply's options, or a
    -- template send's template, recipient, components and campaign.
    request TEXT NOT NULL
);
-- Claims read due rows in due order.
CREATE INDEX scheduled_sends_due ON scheduled_sends (send_at, message_id);

-- Each line's pace: messages a second its sends are spaced to (the platform's default, 80).
ALTER TABLE lines ADD COLUMN messages_per_second INTEGER NOT NULL DEFAULT 80;
