-- hookrelay's migration 0022_failures.sql, its tables named as hookrelay.events is.
CREATE SCHEMA IF NOT EXISTS "hookrelay";
CREATE TABLE IF NOT EXISTS hookrelay.schema_migrations (
	version    integer PRIMARY KEY,
	applied_at timestamptz NOT NULL DEFAULT now()
);

-- 0019: the failures view (Failures) groups the failed and the dead
-- deliveries by destination and kind, the kind read from the last status
-- code and error. This index finds those rows only, so that the grouping's
-- cost follows the number of failures, not the history of done ones nor a
-- backlog of pending ones (which share deliveries_due with the failed).
-- Unlike SQLite's it does not hold the error: an index entry is limited
-- to about 2.7 kB, which the store does not bound an error to, and a write
-- that passed it would fail.
CREATE INDEX deliveries_failures ON hookrelay.deliveries (status, destination)
	WHERE status IN ('failed', 'dead');

INSERT INTO hookrelay.schema_migrations (version) VALUES (22) ON CONFLICT (version) DO NOTHING;
