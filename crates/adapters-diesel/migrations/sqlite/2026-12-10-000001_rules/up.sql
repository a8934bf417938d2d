-- Each agent's automation rules: the event a rule runs on and whether it is enabled as
-- columns (the engine reads an agent's enabled rules for one event), its conditions and
-- actions as one document in the domain's form (`{"v":1,"conditions","actions"}`), read whole
-- and replaced whole. At most 100 an agent, counted under the agent's lock.
CREATE TABLE rules (
    id TEXT PRIMARY KEY NOT NULL,
    agent_id TEXT NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    enabled BOOLEAN NOT NULL,
    on_event TEXT NOT NULL,
    document TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
);
CREATE INDEX rules_agent_created ON rules (agent_id, created_at, id);
