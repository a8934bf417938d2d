-- Contact search (`GET /v1/contacts?search=`) through kept terms, as activity search: every
-- suffix of the contact's lowercased name, of its email address and of each email channel's
-- address ('n' || suffix), and of each channel's digits, at least three ('d' || suffix), cut to
-- 32 characters. A fragment is a prefix of some suffix: one range of this table's key per
-- condition. Writers keep them (`repos/contact_search.rs`): a contact's insert, its updates and
-- renames (through its activity too). Terms compare byte by byte (COLLATE "C"), so a prefix is a
-- range of the key.
CREATE TABLE contact_search_terms (
    agent_id TEXT NOT NULL,
    term TEXT COLLATE "C" NOT NULL,
    contact_id TEXT NOT NULL REFERENCES contacts(id) ON DELETE CASCADE,
    PRIMARY KEY (agent_id, term, contact_id)
);
CREATE INDEX contact_search_terms_contact ON contact_search_terms(contact_id);

INSERT INTO contact_search_terms (agent_id, term, contact_id)
    SELECT t.agent_id, 'n' || substr(t.s, i, 32), t.contact_id
        FROM (
            SELECT agent_id, id AS contact_id, name_search AS s FROM contacts
            UNION ALL SELECT agent_id, id, email FROM contacts WHERE email IS NOT NULL
            UNION ALL SELECT agent_id, contact_id, channel_id FROM contact_channels WHERE channel_type = 'email'
        ) t, generate_series(1, length(t.s)) AS i
    ON CONFLICT DO NOTHING;
INSERT INTO contact_search_terms (agent_id, term, contact_id)
    SELECT ch.agent_id, 'd' || substr(ch.digits, i, 32), ch.contact_id
        FROM contact_channels ch, generate_series(1, length(ch.digits) - 2) AS i
    ON CONFLICT DO NOTHING;
