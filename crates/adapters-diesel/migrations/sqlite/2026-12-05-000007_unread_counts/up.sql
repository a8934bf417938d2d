-- How many inbound messages each activity received since the business last read it
-- (`POST /v1/activities/{id}/read`), kept by the transaction that inserts a message and set to 0
-- by a read, so lists and gets answer `unread_count` from the row they read anyway.
-- Activities from before read receipts count what came after the business's last message: a
-- reply means the earlier ones were read.
ALTER TABLE activities ADD COLUMN unread_count BIGINT NOT NULL DEFAULT 0;
UPDATE activities SET unread_count = (
    SELECT COUNT(*) FROM messages
    WHERE messages.activity_id = activities.id
      AND messages.direction = 'inbound'
      AND messages.created_at > COALESCE(
          (SELECT MAX(o.created_at) FROM messages o WHERE o.activity_id = activities.id AND o.direction = 'outbound'),
          -9223372036854775807)
);
