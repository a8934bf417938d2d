ALTER TABLE activities DROP COLUMN assignee_name;
DROP TABLE sign_in_attempts;
DROP TABLE member_sessions;
DROP TABLE members;
