-- 0017: the deliveries of deleted events are deleted by a statement
-- trigger instead of a foreign key, as 0016 did for attempts.
--
-- The foreign key from deliveries to events checked every delivery row as
-- it was inserted: one lookup of its event, with a KEY SHARE lock that
-- dirties the event's row, per delivery, run through SPI — a sixth of the
-- ingest statement's time with one destination, and four times that with
-- four. It guarded nothing the writers of deliveries do not: ingest
-- inserts deliveries only for the events the same statement has just
-- inserted, and a backfill only for events it joins and holds FOR SHARE
-- until it commits, so a concurrent delete of the event either waits for
-- that commit and then deletes the new deliveries with the event, or
-- comes first, and the backfill finds no event to join.
--
-- What the key did on delete, the trigger does: whatever deletes events
-- (pruning), their deliveries go in the same transaction, and with them
-- their attempts (0016) and their counts (0004). The trigger's DELETE
-- takes its own snapshot, after the deleting statement has waited for any
-- backfill holding those events, so it sees that backfill's deliveries.
ALTER TABLE deliveries DROP CONSTRAINT deliveries_event_id_fkey;

CREATE FUNCTION events_delete_deliveries() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	DELETE FROM deliveries WHERE event_id IN (SELECT id FROM old_rows);
	RETURN NULL;
END
$$;

CREATE TRIGGER events_delete_deliveries AFTER DELETE ON events
	REFERENCING OLD TABLE AS old_rows
	FOR EACH STATEMENT EXECUTE FUNCTION events_delete_deliveries();
