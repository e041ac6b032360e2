-- hookrelay's migration 0021_attempt_headers.sql, its tables named as hookrelay.events is.
CREATE SCHEMA IF NOT EXISTS "hookrelay";
CREATE TABLE IF NOT EXISTS hookrelay.schema_migrations (
	version    integer PRIMARY KEY,
	applied_at timestamptz NOT NULL DEFAULT now()
);

-- 0021: the headers of an attempt: those hookrelay sent (the signature cut
-- short) and those the destination answered with, as JSON, bounded, or no
-- bytes when none were kept. Sealed like the response snippet, under the
-- row's key_id, when payload keys are configured, and emptied by a purge.
-- A constant default rewrites nothing.
ALTER TABLE hookrelay.attempts ADD COLUMN headers bytea NOT NULL DEFAULT ''::bytea;

INSERT INTO hookrelay.schema_migrations (version) VALUES (21) ON CONFLICT (version) DO NOTHING;
