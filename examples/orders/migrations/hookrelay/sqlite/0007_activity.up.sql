-- hookrelay's migration 0007_activity.sql, its tables named as hookrelay_events is.
CREATE TABLE IF NOT EXISTS hookrelay_schema_migrations (
	version    INTEGER NOT NULL PRIMARY KEY,
	applied_at INTEGER NOT NULL
);

-- 0007: the console's activity charts count the attempts of a window by
-- their time.
CREATE INDEX attempts_attempted_at ON hookrelay_attempts (attempted_at);

INSERT OR IGNORE INTO hookrelay_schema_migrations (version, applied_at) VALUES (7, CAST((julianday('now') - 2440587.5) * 86400000000 AS INTEGER));
