-- hookrelay's migration 0021_attempt_headers.sql, its tables named as hookrelay_events is.
CREATE TABLE IF NOT EXISTS hookrelay_schema_migrations (
	version    INTEGER NOT NULL PRIMARY KEY,
	applied_at INTEGER NOT NULL
);

-- 0021: the headers of an attempt: those hookrelay sent (the signature cut
-- short) and those the destination answered with, as JSON, bounded, or no
-- bytes when none were kept. Sealed like the response snippet, under the
-- row's key_id, when payload keys are configured, and emptied by a purge.
ALTER TABLE hookrelay_attempts ADD COLUMN headers BLOB NOT NULL DEFAULT x'';

INSERT OR IGNORE INTO hookrelay_schema_migrations (version, applied_at) VALUES (21, CAST((julianday('now') - 2440587.5) * 86400000000 AS INTEGER));
