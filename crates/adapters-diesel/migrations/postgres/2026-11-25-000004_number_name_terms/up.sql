-- A name term whose text is three to thirty-one digits ending some channel's digits is also that
-- channel's digits term ('d' || the same digits), so a search for part of the number read every
-- match twice. Such a term becomes its first two digits, which one- and two-digit fragments (no
-- digit range) still need; longer fragments find the digits term. Contacts named by their number
-- (every contact a template send created) keep half the terms. New terms follow the same rule
-- (`name_suffixes` in `repos/activity_search.rs`).
CREATE TEMP TABLE answered_name_terms AS
    SELECT n.agent_id, n.term, n.activity_id, n.status, n.updated_at
    FROM activity_search_terms n
    WHERE n.term >= 'n' AND n.term < 'o'
      AND length(n.term) BETWEEN 4 AND 32
      AND substr(n.term, 2) !~ '[^0-9]'
      AND EXISTS (
          SELECT 1 FROM activity_search_terms d
          WHERE d.agent_id = n.agent_id AND d.term = 'd' || substr(n.term, 2) AND d.activity_id = n.activity_id
      );
INSERT INTO activity_search_terms (agent_id, term, activity_id, status, updated_at)
    SELECT agent_id, 'n' || substr(term, 2, 2), activity_id, status, updated_at FROM answered_name_terms
    ON CONFLICT DO NOTHING;
DELETE FROM activity_search_terms t
    USING answered_name_terms a
    WHERE t.agent_id = a.agent_id AND t.term = a.term AND t.activity_id = a.activity_id;
DROP TABLE answered_name_terms;
