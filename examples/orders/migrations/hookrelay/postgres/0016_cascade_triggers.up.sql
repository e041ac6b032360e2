-- hookrelay's migration 0016_cascade_triggers.sql, its tables named as hookrelay.events is.
CREATE SCHEMA IF NOT EXISTS "hookrelay";
CREATE TABLE IF NOT EXISTS hookrelay.schema_migrations (
	version    integer PRIMARY KEY,
	applied_at timestamptz NOT NULL DEFAULT now()
);

-- 0016: the rows that reference a deleted event or delivery are deleted by
-- statement triggers instead of foreign keys.
--
-- PostgreSQL checks a foreign key row by row as rows are inserted: one
-- lookup of the parent, with a KEY SHARE lock that dirties the parent's
-- row, run through SPI. The key from attempts to deliveries cost every
-- outcome a check per attempt, a tenth of the server's CPU in a drain; the
-- key from deliveries to events cost ingest a check per delivery, a sixth
-- of the ingest statement's time with one destination and four times that
-- with four. Neither guarded anything the writers do not:
--
-- - the statement that records outcomes inserts an attempt only for a
--   delivery it has just updated and holds locked until it commits;
-- - ingest inserts deliveries only for the events the same statement has
--   just inserted, and a backfill only for events it joins and holds FOR
--   SHARE until it commits.
--
-- So a concurrent delete of the parent either waits for that commit and
-- then deletes the new rows with it, or comes first, and the writer finds
-- no parent to update or join.
--
-- What the keys did on delete, the triggers do: whatever deletes events
-- (pruning) deletes their deliveries in the same transaction, and that
-- deletes their attempts (and, by 0004, their counts). Each trigger's
-- DELETE takes its own snapshot, after the deleting statement has waited
-- for any writer holding those rows, so it sees what that writer added.
ALTER TABLE hookrelay.attempts DROP CONSTRAINT attempts_delivery_id_fkey;
ALTER TABLE hookrelay.deliveries DROP CONSTRAINT deliveries_event_id_fkey;

-- delete_referencing deletes the rows of table TG_ARGV[0], beside the
-- table it fires on, whose column TG_ARGV[1] holds the id of a row the statement deleted.
CREATE FUNCTION hookrelay.delete_referencing() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE format('DELETE FROM %I.%I WHERE %I IN (SELECT id FROM old_rows)', TG_TABLE_SCHEMA, TG_ARGV[0], TG_ARGV[1]);
	RETURN NULL;
END
$$;

CREATE TRIGGER events_delete_deliveries AFTER DELETE ON hookrelay.events
	REFERENCING OLD TABLE AS old_rows
	FOR EACH STATEMENT EXECUTE FUNCTION hookrelay.delete_referencing('deliveries', 'event_id');
CREATE TRIGGER deliveries_delete_attempts AFTER DELETE ON hookrelay.deliveries
	REFERENCING OLD TABLE AS old_rows
	FOR EACH STATEMENT EXECUTE FUNCTION hookrelay.delete_referencing('attempts', 'delivery_id');

INSERT INTO hookrelay.schema_migrations (version) VALUES (16) ON CONFLICT (version) DO NOTHING;
