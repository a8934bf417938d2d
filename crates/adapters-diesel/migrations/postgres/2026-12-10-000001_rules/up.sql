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

-- Each rule's runs: the primary key makes an event run a rule at most once, whichever worker
-- or process claims it first (an insert that finds the key does nothing). Removed with the rule.
CREATE TABLE rule_runs (
    rule_id TEXT NOT NULL REFERENCES rules(id) ON DELETE CASCADE,
    event_id TEXT NOT NULL,
    agent_id TEXT NOT NULL,
    outcome TEXT NOT NULL,
    error TEXT,
    created_at BIGINT NOT NULL,
    PRIMARY KEY (rule_id, event_id)
);
CREATE INDEX rule_runs_rule_created ON rule_runs (rule_id, created_at, event_id);
