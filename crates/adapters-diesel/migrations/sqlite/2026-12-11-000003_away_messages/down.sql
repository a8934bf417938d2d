ALTER TABLE activities DROP COLUMN away_sent_at;
ALTER TABLE business_hours DROP COLUMN away;
