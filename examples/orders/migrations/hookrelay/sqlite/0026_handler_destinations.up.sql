-- hookrelay's migration 0026_handler_destinations.sql, its tables named as hookrelay_events is.
CREATE TABLE IF NOT EXISTS hookrelay_schema_migrations (
	version    INTEGER NOT NULL PRIMARY KEY,
	applied_at INTEGER NOT NULL
);

-- 0026: the handler destinations registered by the replicas that have
-- their code, each at its start, so that every replica — one without the
-- code too, as during a rolling deploy — fans events out to them, and
-- only those with the code claim their deliveries. sources and types are
-- JSON arrays of strings. registered_at is when the current definition
-- (sources, types, ordering key) was first registered; seen_at when a
-- replica last registered it.
CREATE TABLE hookrelay_handler_destinations (
	name          TEXT    NOT NULL PRIMARY KEY,
	sources       TEXT    NOT NULL,
	types         TEXT    NOT NULL,
	ordering_key  TEXT    NOT NULL DEFAULT '',
	registered_at INTEGER NOT NULL,
	seen_at       INTEGER NOT NULL
) WITHOUT ROWID;

INSERT OR IGNORE INTO hookrelay_schema_migrations (version, applied_at) VALUES (26, CAST((julianday('now') - 2440587.5) * 86400000000 AS INTEGER));
