DROP INDEX messages_campaign_pricing;
ALTER TABLE messages DROP COLUMN pricing;
