-- hookrelay's migration 0010_signature_digests.sql, its tables named as hookrelay_events is.
CREATE TABLE IF NOT EXISTS hookrelay_schema_migrations (
	version    INTEGER NOT NULL PRIMARY KEY,
	applied_at INTEGER NOT NULL
);

-- 0010: a digest of the body and its signature, kept for events whose
-- scheme signs the body alone, so that the same signed body posted again
-- under a new delivery id is found with one index lookup. NULL for every
-- other event, which the partial index leaves out.
ALTER TABLE hookrelay_events ADD COLUMN signature_digest BLOB;
CREATE INDEX events_signature_digest ON hookrelay_events (source, signature_digest, received_at)
	WHERE signature_digest IS NOT NULL;

INSERT OR IGNORE INTO hookrelay_schema_migrations (version, applied_at) VALUES (10, CAST((julianday('now') - 2440587.5) * 86400000000 AS INTEGER));
