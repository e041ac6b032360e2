-- hookrelay's migration 0025_status_indexes.sql, its tables named as hookrelay.events is.
CREATE SCHEMA IF NOT EXISTS "hookrelay";
CREATE TABLE IF NOT EXISTS hookrelay.schema_migrations (
	version    integer PRIMARY KEY,
	applied_at timestamptz NOT NULL DEFAULT now()
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
CREATE INDEX deliveries_failed ON hookrelay.deliveries (event_id, destination) WHERE status = 'failed';
CREATE INDEX deliveries_processing_events ON hookrelay.deliveries (event_id, destination) WHERE status = 'processing';
CREATE INDEX deliveries_skipped ON hookrelay.deliveries (event_id, destination) WHERE status = 'skipped';
CREATE INDEX deliveries_purged ON hookrelay.deliveries (event_id, destination) WHERE status = 'purged';

INSERT INTO hookrelay.schema_migrations (version) VALUES (25) ON CONFLICT (version) DO NOTHING;
