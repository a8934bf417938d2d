-- How many messages each activity's timeline holds, kept by the transaction that inserts a
-- message (messages are never deleted alone; an activity's go with it), so a timeline page
-- answers its `pagination.total` from the activity's row, the row it reads anyway to check
-- whose the activity is, instead of counting the timeline (117 µs a page at 1,000 messages).
ALTER TABLE activities ADD COLUMN message_count BIGINT NOT NULL DEFAULT 0;
UPDATE activities SET message_count = (SELECT COUNT(*) FROM messages WHERE messages.activity_id = activities.id);
