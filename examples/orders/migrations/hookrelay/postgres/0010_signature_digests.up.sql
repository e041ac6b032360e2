-- hookrelay's migration 0010_signature_digests.sql, its tables named as hookrelay.events is.
CREATE SCHEMA IF NOT EXISTS "hookrelay";
CREATE TABLE IF NOT EXISTS hookrelay.schema_migrations (
	version    integer PRIMARY KEY,
	applied_at timestamptz NOT NULL DEFAULT now()
);

-- 0010: a digest of the body and its signature, kept for events whose
-- scheme signs the body alone, so that the same signed body posted again
-- under a new delivery id is found with one index lookup. NULL for every
-- other event, which the partial index leaves out. Adding a nullable column
-- rewrites nothing; building the index reads the events table once.
ALTER TABLE hookrelay.events ADD COLUMN signature_digest bytea;
CREATE INDEX events_signature_digest ON hookrelay.events (source, signature_digest, received_at)
	WHERE signature_digest IS NOT NULL;

INSERT INTO hookrelay.schema_migrations (version) VALUES (10) ON CONFLICT (version) DO NOTHING;
