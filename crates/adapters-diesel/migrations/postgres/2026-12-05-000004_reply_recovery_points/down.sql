ALTER TABLE idempotency_keys DROP COLUMN recovery_point;
