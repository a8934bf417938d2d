-- Name searches ignore accents as they ignore case (`lopez` finds "López"). The keys kept for
-- them (contacts.name_search, the contact and activity search terms, canned_responses.text_key)
-- are derived in Rust (`text::search_key`, Unicode decomposition), which SQL cannot redo: this
-- migration leaves a note that they must be derived again, and the store does it after
-- migrating (`search_keys.rs`), deleting the note when every key is current. A refresh cut short
-- is taken up again by the next start.
CREATE TABLE pending_refreshes (
    name TEXT PRIMARY KEY
);
INSERT INTO pending_refreshes (name) VALUES ('search_keys');
