-- Round robin: the most open conversations a member takes (NULL: no limit; 0: none), and when
-- round robin last gave it one (NULL: never), which breaks ties between equally busy members.
ALTER TABLE members ADD COLUMN max_open INTEGER;
ALTER TABLE members ADD COLUMN last_assigned_at BIGINT;
-- A member's open conversations, counted for round robin.
CREATE INDEX activities_assignee_status ON activities (agent_id, assigned_to, status);
