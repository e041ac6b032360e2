-- hookrelay's migration 0026_handler_destinations.sql, its tables named as hookrelay.events is.
CREATE SCHEMA IF NOT EXISTS "hookrelay";
CREATE TABLE IF NOT EXISTS hookrelay.schema_migrations (
	version    integer PRIMARY KEY,
	applied_at timestamptz NOT NULL DEFAULT now()
);

-- 0026: the handler destinations registered by the replicas that have
-- their code, each at its start, so that every replica — one without the
-- code too, as during a rolling deploy — fans events out to them, and
-- only those with the code claim their deliveries. sources and types are
-- JSON arrays of strings. registered_at is when the current definition
-- (sources, types, ordering key) was first registered; seen_at when a
-- replica last registered it.
CREATE TABLE hookrelay.handler_destinations (
	name          text        NOT NULL PRIMARY KEY,
	sources       text        NOT NULL,
	types         text        NOT NULL,
	ordering_key  text        NOT NULL DEFAULT '',
	registered_at timestamptz NOT NULL,
	seen_at       timestamptz NOT NULL
);

INSERT INTO hookrelay.schema_migrations (version) VALUES (26) ON CONFLICT (version) DO NOTHING;
