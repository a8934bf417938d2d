-- Events waiting for their agent's rules: the outbox adds one as it stores an event that runs
-- rules (`message.received`, `activity.created`, `activity.updated`, not made by a rule) while
-- the agent has an enabled rule for its type, in the same transaction. A worker claims a row by
-- moving `due_at` past its lease and deletes it once the event's rules have run; a row whose
-- lease ran out (its worker stopped) is claimed again, and the runs already claimed are not.
CREATE TABLE rule_queue (
    event_id TEXT PRIMARY KEY NOT NULL REFERENCES events(id) ON DELETE CASCADE,
    event_created_at BIGINT NOT NULL,
    due_at BIGINT NOT NULL
);
CREATE INDEX rule_queue_due ON rule_queue (due_at, event_created_at, event_id);

-- What the outbox asks of every such event: has the agent an enabled rule for its type.
CREATE INDEX rules_enabled_on ON rules (agent_id, on_event) WHERE enabled;
