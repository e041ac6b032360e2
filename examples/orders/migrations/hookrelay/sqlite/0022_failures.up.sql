-- hookrelay's migration 0022_failures.sql, its tables named as hookrelay_events is.
CREATE TABLE IF NOT EXISTS hookrelay_schema_migrations (
	version    INTEGER NOT NULL PRIMARY KEY,
	applied_at INTEGER NOT NULL
);

-- 0019: the failures view (Failures) groups the failed and the dead
-- deliveries by destination and kind, the kind read from the last status
-- code and error. This index holds those rows only, each with all that the
-- grouping reads — the kind's columns, the last change and the event — so
-- that the grouping walks the index in its order and never the table: its
-- cost follows the number of failures, not the history of done ones. A
-- query uses it by naming its condition as it is written here.
CREATE INDEX deliveries_failures ON hookrelay_deliveries (status, destination, last_status_code, last_error, updated_at, event_id)
	WHERE status IN ('failed', 'dead');

INSERT OR IGNORE INTO hookrelay_schema_migrations (version, applied_at) VALUES (22, CAST((julianday('now') - 2440587.5) * 86400000000 AS INTEGER));
