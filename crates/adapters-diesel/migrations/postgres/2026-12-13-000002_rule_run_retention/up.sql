-- Runs are kept as long as the events they ran on: the retention worker deletes the oldest first.
CREATE INDEX rule_runs_created ON rule_runs (created_at);
