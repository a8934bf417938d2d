-- What an activity's list entry and detail show of its contact and tags, kept on the activity
-- so a page is one range of one table: the contact's name, its channels (`[[type, id], …]` in
-- position order) and the activity's tags (`[{"id","name","color"}, …]` ordered by name, then
-- id). Written by the transactions that change them: an activity's insert (from its contact),
-- a rename of its contact, attaching and detaching tags, and a tag's rename, recolor or
-- deletion. A page read its contacts, then its channels and tags by id list: about 5 µs of
-- server time per activity listed.
ALTER TABLE activities ADD COLUMN contact_name TEXT NOT NULL DEFAULT '';
ALTER TABLE activities ADD COLUMN channel_list TEXT NOT NULL DEFAULT '[]';
ALTER TABLE activities ADD COLUMN tag_list TEXT NOT NULL DEFAULT '[]';
UPDATE activities SET
    contact_name = (SELECT profile_name FROM contacts WHERE contacts.id = activities.contact_id),
    channel_list = (SELECT json_group_array(json_array(channel_type, channel_id)) FROM
        (SELECT channel_type, channel_id FROM contact_channels WHERE contact_id = activities.contact_id ORDER BY position)),
    tag_list = (SELECT json_group_array(json_object('id', id, 'name', name, 'color', color)) FROM
        (SELECT tags.id, tags.name, tags.color FROM activity_tags JOIN tags ON tags.id = activity_tags.tag_id
         WHERE activity_tags.activity_id = activities.id ORDER BY tags.name_key, tags.id));
