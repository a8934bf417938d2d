DROP TABLE webhook_events;
DROP TABLE idempotency_keys;
DROP TABLE executions;
DROP TABLE templates;
DROP TABLE lines;
