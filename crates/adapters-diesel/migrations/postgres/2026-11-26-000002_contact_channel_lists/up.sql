-- A contact's channels kept on its row as `[["type","id"], …]` in position order, as activity
-- rows keep them, so a page of contacts reads one row per contact (channels never change after
-- the insert that writes both; `contact_channels` stays the source for lookups by channel).
ALTER TABLE contacts ADD COLUMN channel_list TEXT NOT NULL DEFAULT '[]';
UPDATE contacts SET channel_list = COALESCE(
    (SELECT json_agg(json_build_array(cc.channel_type, cc.channel_id) ORDER BY cc.position)::text
     FROM contact_channels cc WHERE cc.contact_id = contacts.id),
    '[]');
