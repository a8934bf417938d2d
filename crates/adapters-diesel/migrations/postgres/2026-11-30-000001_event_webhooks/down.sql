DROP TABLE delivery_attempts;
DROP TABLE event_deliveries;
DROP TABLE events;
DROP TABLE webhook_endpoints;
