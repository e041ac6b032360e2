-- hookrelay's migration 0002_queue.sql, its tables named as hookrelay.events is.
CREATE SCHEMA IF NOT EXISTS "hookrelay";
CREATE TABLE IF NOT EXISTS hookrelay.schema_migrations (
	version    integer PRIMARY KEY,
	applied_at timestamptz NOT NULL DEFAULT now()
);

-- 0002: the delivery queue.
--
-- order_at is the event's occurred_at, or its received_at when the provider
-- asserts no time, copied onto each delivery at ingest so that per-key
-- ordering needs no join. The claim reads only partial indexes over live
-- rows, so its cost does not grow with the history of finished ones.

ALTER TABLE hookrelay.deliveries ADD COLUMN order_at timestamptz;
UPDATE hookrelay.deliveries d SET order_at = coalesce(e.occurred_at, e.received_at)
FROM hookrelay.events e WHERE e.id = d.event_id;
ALTER TABLE hookrelay.deliveries ALTER COLUMN order_at SET NOT NULL;

-- Due deliveries of one destination, oldest due first.
DROP INDEX hookrelay.deliveries_due;
CREATE INDEX deliveries_due ON hookrelay.deliveries (destination, next_attempt_at, id)
	WHERE status IN ('pending', 'failed');

-- Leases of one destination: expired ones to reclaim, live ones that hold
-- their ordering key, and the next to run out.
DROP INDEX hookrelay.deliveries_lease;
CREATE INDEX deliveries_processing ON hookrelay.deliveries (destination, lease_until)
	WHERE status = 'processing';

-- Per-key ordering: the head of a key is its live delivery with the
-- smallest (order_at, id).
DROP INDEX hookrelay.deliveries_ordering;
CREATE INDEX deliveries_key_head ON hookrelay.deliveries (destination, ordering_key, order_at, id)
	WHERE status IN ('pending', 'failed', 'processing') AND ordering_key <> '';

INSERT INTO hookrelay.schema_migrations (version) VALUES (2) ON CONFLICT (version) DO NOTHING;
