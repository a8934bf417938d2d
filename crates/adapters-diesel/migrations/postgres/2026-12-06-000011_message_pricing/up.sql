-- What the platform charges for an outbound message, as its status reports last told
-- (`Pricing::to_json`: `{"billable":…,"category":…}`, or `{"raw":…}` for a report Parley does
-- not read); NULL until one does. A campaign's summary counts its messages per pricing, by the
-- index below (only template sends carry a campaign key).
ALTER TABLE messages ADD COLUMN pricing TEXT;
CREATE INDEX messages_campaign_pricing ON messages(agent_id, campaign_key, pricing) WHERE campaign_key IS NOT NULL;
