-- hookrelay's migration 0009_signals.sql, its tables named as hookrelay_events is.
CREATE TABLE IF NOT EXISTS hookrelay_schema_migrations (
	version    INTEGER NOT NULL PRIMARY KEY,
	applied_at INTEGER NOT NULL
);

-- 0009: hourly counts of the events each secret slot verified, added to by
-- receivers that count in memory and flush now and then. hour is the unix
-- microsecond of the hour's start; last_at the latest verification in it.
-- Hours older than store.SlotUsageKeep are deleted by the flush itself.
CREATE TABLE hookrelay_secret_slot_hours (
	source   TEXT    NOT NULL,
	slot     INTEGER NOT NULL,
	hour     INTEGER NOT NULL,
	verified INTEGER NOT NULL,
	last_at  INTEGER NOT NULL,
	PRIMARY KEY (source, slot, hour)
) WITHOUT ROWID;

INSERT OR IGNORE INTO hookrelay_schema_migrations (version, applied_at) VALUES (9, CAST((julianday('now') - 2440587.5) * 86400000000 AS INTEGER));
