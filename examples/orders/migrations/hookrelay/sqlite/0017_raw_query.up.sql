-- hookrelay's migration 0017_raw_query.sql, its tables named as hookrelay_events is.
CREATE TABLE IF NOT EXISTS hookrelay_schema_migrations (
	version    INTEGER NOT NULL PRIMARY KEY,
	applied_at INTEGER NOT NULL
);

-- 0017: the query of the URL an event arrived on, for a scheme that signs
-- it (Twilio signs its full URL), so that a stored event can be verified
-- again. Empty for every other event; sealed like the body when payload
-- keys are configured, and emptied by a purge.
ALTER TABLE hookrelay_events ADD COLUMN raw_query TEXT NOT NULL DEFAULT '';

INSERT OR IGNORE INTO hookrelay_schema_migrations (version, applied_at) VALUES (17, CAST((julianday('now') - 2440587.5) * 86400000000 AS INTEGER));
