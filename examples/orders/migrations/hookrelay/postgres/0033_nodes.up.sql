-- hookrelay's migration 0033_nodes.sql, its tables named as hookrelay.events is.
CREATE SCHEMA IF NOT EXISTS "hookrelay";
CREATE TABLE IF NOT EXISTS hookrelay.schema_migrations (
	version    integer PRIMARY KEY,
	applied_at timestamptz NOT NULL DEFAULT now()
);

-- 0033: the relay processes of a fleet, as each last reported itself
-- (every few seconds and after each reload): which version and which
-- configuration each runs, so that nodes that disagree are shown.
CREATE TABLE hookrelay.nodes (
	id                 text COLLATE "C" PRIMARY KEY,
	version            text NOT NULL,
	config_fingerprint text NOT NULL,
	started_at         timestamptz NOT NULL,
	seen_at            timestamptz NOT NULL
);

INSERT INTO hookrelay.schema_migrations (version) VALUES (33) ON CONFLICT (version) DO NOTHING;
