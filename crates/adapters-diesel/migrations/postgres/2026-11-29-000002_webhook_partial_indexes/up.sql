-- Only the deliveries still to do (due, or being retried) and those given up are ever looked up
-- by these columns; every other delivery, processed as it arrived, has both NULL. Indexing only
-- the non-NULL rows spares each delivery's insert two index entries, which all went to the one
-- end of each index where NULLs sort (a page every concurrent delivery wrote). Every query on
-- them says the column is not NULL (a comparison, or `IS NOT NULL`), so both planners use them.
DROP INDEX webhook_events_due;
CREATE INDEX webhook_events_due ON webhook_events(next_attempt_at) WHERE next_attempt_at IS NOT NULL;
DROP INDEX webhook_events_failed;
CREATE INDEX webhook_events_failed ON webhook_events(failed_at) WHERE failed_at IS NOT NULL;
