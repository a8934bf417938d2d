DROP INDEX rule_runs_created;
