DROP TABLE rule_runs;
DROP TABLE rules;
