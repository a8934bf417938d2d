-- What a delivery's processing set aside: the messages and statuses it could not
-- store, each with its place in the delivery, platform id, sender and reason, as a JSON array
-- written by the adapter (`repos/webhooks.rs`); NULL when everything was stored, as for
-- nearly every delivery. A column of the delivery rather than a table of its own: it is
-- written and read with its delivery only, the same way on both backends. The partial index
-- serves `parley webhooks failed`, which lists them oldest first without reading the
-- processed history.
ALTER TABLE webhook_events ADD COLUMN set_aside TEXT;
CREATE INDEX webhook_events_set_aside ON webhook_events(received_at) WHERE set_aside IS NOT NULL;
