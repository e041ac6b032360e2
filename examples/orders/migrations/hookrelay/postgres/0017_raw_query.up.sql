-- hookrelay's migration 0017_raw_query.sql, its tables named as hookrelay.events is.
CREATE SCHEMA IF NOT EXISTS "hookrelay";
CREATE TABLE IF NOT EXISTS hookrelay.schema_migrations (
	version    integer PRIMARY KEY,
	applied_at timestamptz NOT NULL DEFAULT now()
);

-- 0017: the query of the URL an event arrived on, for a scheme that signs
-- it (Twilio signs its full URL), so that a stored event can be verified
-- again. Empty for every other event; sealed like the body when payload
-- keys are configured, and emptied by a purge. A constant default rewrites
-- nothing.
ALTER TABLE hookrelay.events ADD COLUMN raw_query text NOT NULL DEFAULT '';

INSERT INTO hookrelay.schema_migrations (version) VALUES (17) ON CONFLICT (version) DO NOTHING;
