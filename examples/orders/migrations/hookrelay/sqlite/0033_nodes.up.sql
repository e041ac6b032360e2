-- hookrelay's migration 0033_nodes.sql, its tables named as hookrelay_events is.
CREATE TABLE IF NOT EXISTS hookrelay_schema_migrations (
	version    INTEGER NOT NULL PRIMARY KEY,
	applied_at INTEGER NOT NULL
);

-- 0033: the relay processes of a fleet, as each last reported itself
-- (every few seconds and after each reload): which version and which
-- configuration each runs, so that nodes that disagree are shown. A
-- SQLite file has one process, and so one node.
CREATE TABLE hookrelay_nodes (
	id                 TEXT    NOT NULL PRIMARY KEY,
	version            TEXT    NOT NULL,
	config_fingerprint TEXT    NOT NULL,
	started_at         INTEGER NOT NULL,
	seen_at            INTEGER NOT NULL
) WITHOUT ROWID;

INSERT OR IGNORE INTO hookrelay_schema_migrations (version, applied_at) VALUES (33, CAST((julianday('now') - 2440587.5) * 86400000000 AS INTEGER));
