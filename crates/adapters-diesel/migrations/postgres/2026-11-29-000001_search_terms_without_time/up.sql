-- Search terms stop copying their activity's `updated_at`. Every message moved it, so every
-- inbound message rewrote the twenty-odd term rows of its activity (21 of the 35 pages a
-- delivery dirtied on SQLite; on PostgreSQL a statement and a row version per term). A search
-- now orders its matches by the activity's own `updated_at` (`repos/activity_search.rs`).
ALTER TABLE activity_search_terms DROP COLUMN updated_at;
