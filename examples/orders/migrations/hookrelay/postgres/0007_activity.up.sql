-- hookrelay's migration 0007_activity.sql, its tables named as hookrelay.events is.
CREATE SCHEMA IF NOT EXISTS "hookrelay";
CREATE TABLE IF NOT EXISTS hookrelay.schema_migrations (
	version    integer PRIMARY KEY,
	applied_at timestamptz NOT NULL DEFAULT now()
);

-- 0007: the console's activity charts count the attempts of a window by
-- their time.
CREATE INDEX attempts_attempted_at ON hookrelay.attempts (attempted_at);

INSERT INTO hookrelay.schema_migrations (version) VALUES (7) ON CONFLICT (version) DO NOTHING;
