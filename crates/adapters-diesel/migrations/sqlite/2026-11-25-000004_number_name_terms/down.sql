-- Every suffix of every name again, as before (the rows this migration kept stay).
WITH RECURSIVE suffix(agent_id, activity_id, status, updated_at, s, i) AS (
    SELECT a.agent_id, a.id, a.status, a.updated_at, c.name_search, 1
        FROM activities a JOIN contacts c ON c.id = a.contact_id WHERE length(c.name_search) > 0
    UNION ALL
    SELECT agent_id, activity_id, status, updated_at, s, i + 1 FROM suffix WHERE i < length(s)
)
INSERT OR IGNORE INTO activity_search_terms (agent_id, term, activity_id, status, updated_at)
    SELECT agent_id, 'n' || substr(s, i, 32), activity_id, status, updated_at FROM suffix;
