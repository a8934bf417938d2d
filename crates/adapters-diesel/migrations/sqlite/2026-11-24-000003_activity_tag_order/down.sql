DROP INDEX activity_tags_tag_order;
CREATE INDEX activity_tags_tag ON activity_tags(tag_id);
ALTER TABLE activity_tags DROP COLUMN activity_updated_at;
