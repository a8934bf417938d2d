-- An agent's team members (`usr_…`), who sign in to the inbox: the email is lowercased and unique
-- per agent (an address may belong to several agents); only the password's Argon2id hash (a PHC
-- string) is kept. `must_change_password` is 1 while the member holds its one-time password.
CREATE TABLE members (
    id TEXT PRIMARY KEY NOT NULL,
    agent_id TEXT NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
    email TEXT NOT NULL,
    name TEXT NOT NULL,
    role TEXT NOT NULL,
    password_hash TEXT NOT NULL,
    must_change_password INTEGER NOT NULL,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    UNIQUE (agent_id, email)
);
-- Sign-in finds an email's members whichever agent.
CREATE INDEX members_by_email ON members (email);

-- Members' sessions, by the SHA-256 of the cookie's token (never the token). A member's removal
-- ends them.
CREATE TABLE member_sessions (
    id TEXT PRIMARY KEY NOT NULL,
    agent_id TEXT NOT NULL,
    member_id TEXT NOT NULL REFERENCES members(id) ON DELETE CASCADE,
    token_hash TEXT NOT NULL UNIQUE,
    created_at BIGINT NOT NULL,
    last_seen_at BIGINT NOT NULL
);
CREATE INDEX member_sessions_by_member ON member_sessions (member_id);
CREATE INDEX member_sessions_by_last_seen ON member_sessions (last_seen_at);

-- Failed sign-ins by email (`failed`, or `locked` for the failure that locked it), whether or
-- not a member has the email; marks older than the lock-out window are pruned.
CREATE TABLE sign_in_attempts (
    email TEXT NOT NULL,
    mark TEXT NOT NULL,
    at BIGINT NOT NULL
);
CREATE INDEX sign_in_attempts_by_email ON sign_in_attempts (email, at);
CREATE INDEX sign_in_attempts_by_time ON sign_in_attempts (at);

-- The name of the member an activity is assigned to, kept on its row as its contact's name is
-- (written with the assignment, cleared when the member is removed): lists read no join.
ALTER TABLE activities ADD COLUMN assignee_name TEXT;
