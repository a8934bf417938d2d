-- Contact search (`GET /v1/contacts?search=`) through kept terms, as activity search: every
-- suffix of the contact's lowercased name, of its email address and of each email channel's
-- address ('n' || suffix), and of each channel's digits, at least three ('d' || suffix), cut to
-- 32 characters. A fragment is a prefix of some suffix: one range of this table's key per
-- condition. Writers keep them (`repos/contact_search.rs`): a contact's insert, its updates and
-- renames (through its activity too).
CREATE TABLE contact_search_terms (
    agent_id TEXT NOT NULL,
    term TEXT NOT NULL,
    contact_id TEXT NOT NULL REFERENCES contacts(id) ON DELETE CASCADE,
    PRIMARY KEY (agent_id, term, contact_id)
) WITHOUT ROWID;
CREATE INDEX contact_search_terms_contact ON contact_search_terms(contact_id);

WITH RECURSIVE texts(agent_id, contact_id, s) AS (
    SELECT agent_id, id, name_search FROM contacts
    UNION ALL SELECT agent_id, id, email FROM contacts WHERE email IS NOT NULL
    UNION ALL SELECT agent_id, contact_id, channel_id FROM contact_channels WHERE channel_type = 'email'
), suffix(agent_id, contact_id, s, i) AS (
    SELECT agent_id, contact_id, s, 1 FROM texts WHERE length(s) > 0
    UNION ALL
    SELECT agent_id, contact_id, s, i + 1 FROM suffix WHERE i < length(s)
)
INSERT OR IGNORE INTO contact_search_terms (agent_id, term, contact_id)
    SELECT agent_id, 'n' || substr(s, i, 32), contact_id FROM suffix;

WITH RECURSIVE suffix(agent_id, contact_id, s, i) AS (
    SELECT agent_id, contact_id, digits, 1 FROM contact_channels WHERE length(digits) >= 3
    UNION ALL
    SELECT agent_id, contact_id, s, i + 1 FROM suffix WHERE i < length(s) - 2
)
INSERT OR IGNORE INTO contact_search_terms (agent_id, term, contact_id)
    SELECT agent_id, 'd' || substr(s, i, 32), contact_id FROM suffix;
