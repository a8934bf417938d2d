ALTER TABLE activity_search_terms ADD COLUMN updated_at BIGINT NOT NULL DEFAULT 0;
UPDATE activity_search_terms SET updated_at = (SELECT a.updated_at FROM activities a WHERE a.id = activity_search_terms.activity_id);
