-- hookrelay's migration 0038_event_keys.sql, its tables named as hookrelay_events is.
CREATE TABLE IF NOT EXISTS hookrelay_schema_migrations (
	version    INTEGER NOT NULL PRIMARY KEY,
	applied_at INTEGER NOT NULL
);

-- 0038: the statements that look an event up by its provider's id read
-- event_keys, (source, provider_event_id, event_id). On PostgreSQL it
-- becomes a table of its own when the event log is partitioned by time
-- (retention.partitions), since a partitioned events table cannot keep
-- the dedupe's unique index; a SQLite event log is never partitioned,
-- and here it is a view over events, whose unique index (source,
-- provider_event_id) answers it as before. A view stores nothing.
CREATE VIEW hookrelay_event_keys AS
SELECT source, provider_event_id, id AS event_id FROM hookrelay_events;

INSERT OR IGNORE INTO hookrelay_schema_migrations (version, applied_at) VALUES (38, CAST((julianday('now') - 2440587.5) * 86400000000 AS INTEGER));
