-- hookrelay's migration 0012_payload_keys.sql, its tables named as hookrelay_events is.
CREATE TABLE IF NOT EXISTS hookrelay_schema_migrations (
	version    INTEGER NOT NULL PRIMARY KEY,
	applied_at INTEGER NOT NULL
);

-- 0012: the id of the key that sealed a row's payload (an event's body and
-- headers, an attempt's response snippet); NULL when it is stored plain.
ALTER TABLE hookrelay_events ADD COLUMN key_id TEXT;
ALTER TABLE hookrelay_attempts ADD COLUMN key_id TEXT;

INSERT OR IGNORE INTO hookrelay_schema_migrations (version, applied_at) VALUES (12, CAST((julianday('now') - 2440587.5) * 86400000000 AS INTEGER));
