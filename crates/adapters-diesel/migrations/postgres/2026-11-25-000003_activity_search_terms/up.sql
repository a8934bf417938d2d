-- Activity search through kept terms instead of a scan of every contact. An activity's terms are
-- every suffix of its contact's lowercased name ('n' || suffix) and of each channel's digits, at
-- least three ('d' || suffix), cut to 32 characters, each with the activity's status and update
-- time beside it. A fragment is then a prefix: one range of this table's key per condition, and
-- its rows hold all that counting the matches and ordering them needs. Writers keep the terms
-- (`repos/activity_search.rs`): an activity's insert, its status and update time, renames.
-- Terms compare byte by byte (COLLATE "C"), so a prefix is a range of the key.
CREATE TABLE activity_search_terms (
    agent_id TEXT NOT NULL,
    term TEXT COLLATE "C" NOT NULL,
    activity_id TEXT NOT NULL REFERENCES activities(id) ON DELETE CASCADE,
    status TEXT NOT NULL,
    updated_at BIGINT NOT NULL,
    PRIMARY KEY (agent_id, term, activity_id)
);
CREATE INDEX activity_search_terms_activity ON activity_search_terms(activity_id);

INSERT INTO activity_search_terms (agent_id, term, activity_id, status, updated_at)
    SELECT a.agent_id, 'n' || substr(c.name_search, i, 32), a.id, a.status, a.updated_at
        FROM activities a JOIN contacts c ON c.id = a.contact_id, generate_series(1, length(c.name_search)) AS i
    ON CONFLICT DO NOTHING;
INSERT INTO activity_search_terms (agent_id, term, activity_id, status, updated_at)
    SELECT a.agent_id, 'd' || substr(ch.digits, i, 32), a.id, a.status, a.updated_at
        FROM activities a JOIN contact_channels ch ON ch.contact_id = a.contact_id, generate_series(1, length(ch.digits) - 2) AS i
    ON CONFLICT DO NOTHING;

-- The scans these served are gone.
DROP INDEX contacts_agent_name_search;
DROP INDEX contact_channels_agent_digits;
