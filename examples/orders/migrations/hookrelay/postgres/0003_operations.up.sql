-- hookrelay's migration 0003_operations.sql, its tables named as hookrelay.events is.
CREATE SCHEMA IF NOT EXISTS "hookrelay";
CREATE TABLE IF NOT EXISTS hookrelay.schema_migrations (
	version    integer PRIMARY KEY,
	applied_at timestamptz NOT NULL DEFAULT now()
);

-- 0003: the operator side — listing, replay, backfill, statistics and
-- retention.
--
-- Event ids are ULIDs whose time is the receive time, to the millisecond,
-- so a received_at window is an id range: the time indexes give way to id
-- indexes, which also serve newest-first listing and oldest-first pruning.
-- Queries on a window compare received_at (exactly) and the id range (for
-- the index).
DROP INDEX hookrelay.events_received_at;
DROP INDEX hookrelay.events_source_type_received_at;
CREATE INDEX events_source_type_id ON hookrelay.events (source, type, id);
-- events_source_id (source, id) and the primary key (id) stay.

-- Dead deliveries are few: listing dead letters and pruning dead events
-- find them here rather than in the whole history.
CREATE INDEX deliveries_dead ON hookrelay.deliveries (event_id) WHERE status = 'dead';

-- Bodies of a few KiB are stored inline and uncompressed: a tuple is only
-- compressed or moved out of line past 8160 bytes (the most a page holds),
-- instead of past the default ~2 KiB, which sent a 2 KiB body through pglz
-- on every ingest. Larger bodies use lz4 where the server was built with
-- it (PostgreSQL 14 and later; the default stays pglz otherwise).
ALTER TABLE hookrelay.events SET (toast_tuple_target = 8160);
DO $$
BEGIN
	IF EXISTS (
		SELECT 1 FROM pg_settings
		WHERE name = 'default_toast_compression' AND 'lz4' = ANY (enumvals)
	) THEN
		EXECUTE 'ALTER TABLE hookrelay.events ALTER COLUMN body SET COMPRESSION lz4';
	END IF;
END
$$;

-- The replays table is the audit log of replays and backfills alike. A
-- backfill row has kind 'backfill', its destination and window in filter,
-- and the delivery rows it created in created; its matched, rearmed and
-- in_flight are 0.
ALTER TABLE hookrelay.replays ADD COLUMN kind text NOT NULL DEFAULT 'replay';
ALTER TABLE hookrelay.replays ADD COLUMN created bigint NOT NULL DEFAULT 0;

-- Ingest outcomes by source, added to by receivers that count in memory
-- and flush now and then (a counter updated inside every ingest would
-- serialise concurrent commits on its row).
CREATE TABLE hookrelay.ingest_counts (
	source     text COLLATE "C" NOT NULL PRIMARY KEY,
	received   bigint NOT NULL DEFAULT 0,
	duplicates bigint NOT NULL DEFAULT 0,
	rejected   bigint NOT NULL DEFAULT 0
);

-- Retention deletes finished events in small batches, oldest first. At a
-- volume where those deletes hurt (vacuum churn, index bloat, WAL), the
-- event log can be partitioned by time instead, and whole partitions
-- dropped: docs/retention.md describes how.

INSERT INTO hookrelay.schema_migrations (version) VALUES (3) ON CONFLICT (version) DO NOTHING;
