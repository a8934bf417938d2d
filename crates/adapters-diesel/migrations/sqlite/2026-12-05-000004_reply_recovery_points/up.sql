-- A claimed Idempotency-Key's recovery point: the id of what its request recorded before acting
-- (a reply's message, recorded `sending` before the platform is called), so a retry after a
-- crash answers it instead of guessing. NULL until the request records something.
ALTER TABLE idempotency_keys ADD COLUMN recovery_point TEXT;
