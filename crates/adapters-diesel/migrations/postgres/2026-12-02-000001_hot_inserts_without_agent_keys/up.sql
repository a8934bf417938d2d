-- Every inbound message inserts a message and an event. Their foreign keys to `agents` made
-- each insert take a key-share lock on the agent's one row, so concurrent deliveries of one
-- agent shared that lock (PostgreSQL builds a multixact for every shared locker) and checked a
-- key nothing can remove: agents are never deleted. A message's agent is implied by its
-- activity (whose foreign key still cascades); an event is deleted by retention within 30 days.
ALTER TABLE messages DROP CONSTRAINT messages_agent_id_fkey;
ALTER TABLE events DROP CONSTRAINT events_agent_id_fkey;
