-- hookrelay's migration 0025_status_indexes.sql, its tables named as hookrelay_events is.
CREATE TABLE IF NOT EXISTS hookrelay_schema_migrations (
	version    INTEGER NOT NULL PRIMARY KEY,
	applied_at INTEGER NOT NULL
);

-- 0025: the events page lists the events with a delivery in a status few
-- deliveries are in from those deliveries, newest first, rather than
-- looking through the log for them (which took seconds at millions of
-- events when none matched): these partial indexes hold them by event,
-- in the order of the list, with the destination, so that a filter on it
-- and the check that an event is listed once read the index alone.
-- deliveries_dead (0003) serves the dead ones.
--
-- Failures, skips and purges pay for their entries. The processing index
-- costs a claim one entry more (and on SQLite an outcome its removal);
-- without it a planner without statistics walked the (event_id,
-- destination) index of every delivery to find the few processing, in
-- the order of the page, rather than read the claim's index of them
-- (deliveries_processing, by destination) and sort.
CREATE INDEX deliveries_failed ON hookrelay_deliveries (event_id, destination) WHERE status = 'failed';
CREATE INDEX deliveries_processing_events ON hookrelay_deliveries (event_id, destination) WHERE status = 'processing';
CREATE INDEX deliveries_skipped ON hookrelay_deliveries (event_id, destination) WHERE status = 'skipped';
CREATE INDEX deliveries_purged ON hookrelay_deliveries (event_id, destination) WHERE status = 'purged';

INSERT OR IGNORE INTO hookrelay_schema_migrations (version, applied_at) VALUES (25, CAST((julianday('now') - 2440587.5) * 86400000000 AS INTEGER));
