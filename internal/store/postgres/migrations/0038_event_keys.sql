-- 0038: what partitioning the event log by time needs of every database,
-- partitioned or not (retention.partitions; docs/retention.md). The
-- partitioning itself is not a migration: `hookrelay partitions enable`
-- converts a database that holds events, and Migrate one that holds none
-- when the config asks for partitions.
--
-- event_keys is what an event's provider id is looked up in: (source,
-- provider_event_id) to the event id. Unpartitioned, it is a view over
-- events, whose unique index (source, provider_event_id) keeps the dedupe
-- as before and answers the lookups. A partitioned events table cannot
-- keep that index (a unique index of a partitioned table holds the
-- partition key, the id): enabling partitions replaces the view with a
-- table of its own, unpartitioned, keyed by (source, provider_event_id),
-- which the ingest statement writes before the event; its rows are
-- deleted with their events.
CREATE VIEW hookrelay.event_keys AS
SELECT source, provider_event_id, id AS event_id FROM hookrelay.events;

-- The event of an attempt's delivery: attempts are partitioned by it,
-- beside their deliveries. Every statement that inserts attempts writes
-- it from now on; the rows written before keep NULL, which enabling
-- partitions fills. Nullable without a default: nothing is rewritten.
ALTER TABLE hookrelay.attempts ADD COLUMN event_id text COLLATE "C";

-- The triggers of the partitioned layout, created by enabling partitions.
-- They join on the partition key, so that each row deleted probes the
-- partition of its own period only.

-- delete_delivery_attempts deletes the attempts of the deleted deliveries.
CREATE FUNCTION hookrelay.delete_delivery_attempts() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	DELETE FROM hookrelay.attempts a USING old_rows o WHERE a.event_id = o.event_id AND a.delivery_id = o.id;
	RETURN NULL;
END
$$;

-- delete_event_deliveries deletes the deliveries of the deleted events.
CREATE FUNCTION hookrelay.delete_event_deliveries() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	DELETE FROM hookrelay.deliveries d USING old_rows o WHERE d.event_id = o.id;
	RETURN NULL;
END
$$;

-- delete_event_keys deletes the dedupe keys of the deleted events, so that
-- a provider id is refused exactly as long as its event is kept.
CREATE FUNCTION hookrelay.delete_event_keys() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	DELETE FROM hookrelay.event_keys k USING old_rows o
	WHERE k.source = o.source AND k.provider_event_id = o.provider_event_id AND k.event_id = o.id;
	RETURN NULL;
END
$$;
