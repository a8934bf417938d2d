DROP INDEX rules_enabled_on;
DROP TABLE rule_queue;
