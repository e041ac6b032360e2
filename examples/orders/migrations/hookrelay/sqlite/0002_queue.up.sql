-- hookrelay's migration 0002_queue.sql, its tables named as hookrelay_events is.
CREATE TABLE IF NOT EXISTS hookrelay_schema_migrations (
	version    INTEGER NOT NULL PRIMARY KEY,
	applied_at INTEGER NOT NULL
);

-- 0002: the delivery queue.
--
-- order_at is the event's occurred_at, or its received_at when the provider
-- asserts no time, copied onto each delivery at ingest so that per-key
-- ordering needs no join. The claim reads only partial indexes over live
-- rows, so its cost does not grow with the history of finished ones.

ALTER TABLE hookrelay_deliveries ADD COLUMN order_at INTEGER NOT NULL DEFAULT 0;
UPDATE hookrelay_deliveries SET order_at = (
	SELECT coalesce(e.occurred_at, e.received_at) FROM hookrelay_events e WHERE e.id = hookrelay_deliveries.event_id
);

-- The DEFAULT only lets the column be added: a delivery written without
-- its order_at would silently become the head of its key. Refuse it, as
-- PostgreSQL's NOT NULL without a default does.
CREATE TRIGGER deliveries_order_at_required BEFORE INSERT ON hookrelay_deliveries
WHEN NEW.order_at = 0
BEGIN
	SELECT RAISE(ABORT, 'deliveries.order_at is required');
END;

-- Due deliveries of one destination, oldest due first.
DROP INDEX deliveries_due;
CREATE INDEX deliveries_due ON hookrelay_deliveries (destination, next_attempt_at, id)
	WHERE status IN ('pending', 'failed');

-- Leases of one destination: expired ones to reclaim, live ones that hold
-- their ordering key, and the next to run out.
DROP INDEX deliveries_lease;
CREATE INDEX deliveries_processing ON hookrelay_deliveries (destination, lease_until)
	WHERE status = 'processing';

-- Per-key ordering: the head of a key is its live delivery with the
-- smallest (order_at, id).
DROP INDEX deliveries_ordering;
CREATE INDEX deliveries_key_head ON hookrelay_deliveries (destination, ordering_key, order_at, id)
	WHERE status IN ('pending', 'failed', 'processing') AND ordering_key <> '';

INSERT OR IGNORE INTO hookrelay_schema_migrations (version, applied_at) VALUES (2, CAST((julianday('now') - 2440587.5) * 86400000000 AS INTEGER));
