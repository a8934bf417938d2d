-- The team inbox's filters of the activity list (`assigned_to`, `unread`, `channel_type`), each
-- an index range in list order, so a filter that keeps a few conversations reads those few.

-- One user's conversations, or the unassigned ones (`assigned_to IS NULL` is a range too).
CREATE INDEX activities_agent_assignee_updated ON activities(agent_id, assigned_to, updated_at DESC, id DESC);
-- Conversations with unread messages: usually a small share, so a partial index holds them
-- alone, and counting them reads only them.
CREATE INDEX activities_agent_unread_updated ON activities(agent_id, updated_at DESC, id DESC) WHERE unread_count > 0;
-- The contacts with a channel of one type (activities by channel type, contacts by channel type).
CREATE INDEX contact_channels_agent_type ON contact_channels(agent_id, channel_type, contact_id);

-- The unassigned conversations' kept count beside each status's count, so `assigned_to=none`
-- (the inbox's "to pick up" view) answers its total without counting them. Backfilled into
-- each (agent, status)'s lowest shard: the shards are summed on read, so where a count sits
-- does not matter, only that the moves that follow add to and take from the same sum.
ALTER TABLE activity_counts ADD COLUMN unassigned BIGINT NOT NULL DEFAULT 0;
UPDATE activity_counts SET unassigned = (
    SELECT COUNT(*) FROM activities a
    WHERE a.agent_id = activity_counts.agent_id AND a.status = activity_counts.status AND a.assigned_to IS NULL
)
WHERE shard = (
    SELECT MIN(c.shard) FROM activity_counts c WHERE c.agent_id = activity_counts.agent_id AND c.status = activity_counts.status
);
