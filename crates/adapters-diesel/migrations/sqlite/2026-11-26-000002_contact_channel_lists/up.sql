-- A contact's channels kept on its row as `[["type","id"], …]` in position order, as activity
-- rows keep them, so a page of contacts reads one row per contact (channels never change after
-- the insert that writes both; `contact_channels` stays the source for lookups by channel).
ALTER TABLE contacts ADD COLUMN channel_list TEXT NOT NULL DEFAULT '[]';
UPDATE contacts SET channel_list = COALESCE(
    (SELECT json_group_array(json_array(channel_type, channel_id))
     FROM (SELECT channel_type, channel_id FROM contact_channels cc
           WHERE cc.contact_id = contacts.id ORDER BY cc.position)),
    '[]');
