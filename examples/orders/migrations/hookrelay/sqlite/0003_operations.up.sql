-- hookrelay's migration 0003_operations.sql, its tables named as hookrelay_events is.
CREATE TABLE IF NOT EXISTS hookrelay_schema_migrations (
	version    INTEGER NOT NULL PRIMARY KEY,
	applied_at INTEGER NOT NULL
);

-- 0003: the operator side — listing, replay, backfill, statistics and
-- retention.
--
-- Event ids are ULIDs whose time is the receive time, to the millisecond,
-- so a received_at window is an id range: the time indexes give way to id
-- indexes, which also serve newest-first listing and oldest-first pruning.
-- Queries on a window compare received_at (exactly) and the id range (for
-- the index).
DROP INDEX events_received_at;
DROP INDEX events_source_type_received_at;
CREATE INDEX events_source_type_id ON hookrelay_events (source, type, id);
-- events_source_id (source, id) and the primary key (id) stay.

-- Dead deliveries are few: listing dead letters and pruning dead events
-- find them here rather than in the whole history.
CREATE INDEX deliveries_dead ON hookrelay_deliveries (event_id) WHERE status = 'dead';

-- The replays table is the audit log of replays and backfills alike. A
-- backfill row has kind 'backfill', its destination and window in filter,
-- and the delivery rows it created in created; its matched, rearmed and
-- in_flight are 0.
ALTER TABLE hookrelay_replays ADD COLUMN kind TEXT NOT NULL DEFAULT 'replay';
ALTER TABLE hookrelay_replays ADD COLUMN created INTEGER NOT NULL DEFAULT 0;

-- Ingest outcomes by source, added to by receivers that count in memory
-- and flush now and then.
CREATE TABLE hookrelay_ingest_counts (
	source     TEXT    NOT NULL PRIMARY KEY,
	received   INTEGER NOT NULL DEFAULT 0,
	duplicates INTEGER NOT NULL DEFAULT 0,
	rejected   INTEGER NOT NULL DEFAULT 0
) WITHOUT ROWID;

INSERT OR IGNORE INTO hookrelay_schema_migrations (version, applied_at) VALUES (3, CAST((julianday('now') - 2440587.5) * 86400000000 AS INTEGER));
