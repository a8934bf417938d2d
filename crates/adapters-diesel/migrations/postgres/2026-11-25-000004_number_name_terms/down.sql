-- Every suffix of every name again, as before (the rows this migration kept stay).
INSERT INTO activity_search_terms (agent_id, term, activity_id, status, updated_at)
    SELECT a.agent_id, 'n' || substr(c.name_search, i, 32), a.id, a.status, a.updated_at
        FROM activities a JOIN contacts c ON c.id = a.contact_id, generate_series(1, length(c.name_search)) AS i
    ON CONFLICT DO NOTHING;
