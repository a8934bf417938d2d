-- Activity search through kept terms instead of a scan of every contact. An activity's terms are
-- every suffix of its contact's lowercased name ('n' || suffix) and of each channel's digits, at
-- least three ('d' || suffix), cut to 32 characters, each with the activity's status and update
-- time beside it. A fragment is then a prefix: one range of this table's key per condition, and
-- its rows hold all that counting the matches and ordering them needs. Writers keep the terms
-- (`repos/activity_search.rs`): an activity's insert, its status and update time, renames.
CREATE TABLE activity_search_terms (
    agent_id TEXT NOT NULL,
    term TEXT NOT NULL,
    activity_id TEXT NOT NULL REFERENCES activities(id) ON DELETE CASCADE,
    status TEXT NOT NULL,
    updated_at BIGINT NOT NULL,
    PRIMARY KEY (agent_id, term, activity_id)
) WITHOUT ROWID;
CREATE INDEX activity_search_terms_activity ON activity_search_terms(activity_id);

WITH RECURSIVE suffix(agent_id, activity_id, status, updated_at, s, i) AS (
    SELECT a.agent_id, a.id, a.status, a.updated_at, c.name_search, 1
        FROM activities a JOIN contacts c ON c.id = a.contact_id WHERE length(c.name_search) > 0
    UNION ALL
    SELECT agent_id, activity_id, status, updated_at, s, i + 1 FROM suffix WHERE i < length(s)
)
INSERT OR IGNORE INTO activity_search_terms (agent_id, term, activity_id, status, updated_at)
    SELECT agent_id, 'n' || substr(s, i, 32), activity_id, status, updated_at FROM suffix;

WITH RECURSIVE suffix(agent_id, activity_id, status, updated_at, s, i) AS (
    SELECT a.agent_id, a.id, a.status, a.updated_at, ch.digits, 1
        FROM activities a JOIN contact_channels ch ON ch.contact_id = a.contact_id WHERE length(ch.digits) >= 3
    UNION ALL
    SELECT agent_id, activity_id, status, updated_at, s, i + 1 FROM suffix WHERE i < length(s) - 2
)
INSERT OR IGNORE INTO activity_search_terms (agent_id, term, activity_id, status, updated_at)
    SELECT agent_id, 'd' || substr(s, i, 32), activity_id, status, updated_at FROM suffix;

-- The scans these served are gone.
DROP INDEX contacts_agent_name_search;
DROP INDEX contact_channels_agent_digits;
