DROP INDEX webhook_endpoints_rotation;
ALTER TABLE webhook_endpoints DROP COLUMN paused_until;
ALTER TABLE webhook_endpoints DROP COLUMN served_at;
