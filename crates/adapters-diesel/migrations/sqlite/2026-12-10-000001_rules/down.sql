DROP TABLE rules;
