-- hookrelay's migration 0035_jobs.sql, its tables named as hookrelay_events is.
CREATE TABLE IF NOT EXISTS hookrelay_schema_migrations (
	version    INTEGER NOT NULL PRIMARY KEY,
	applied_at INTEGER NOT NULL
);

-- 0035: replay and backfill jobs live in the database (see the PostgreSQL
-- migration of the same number).
CREATE TABLE hookrelay_jobs (
	id            TEXT    NOT NULL PRIMARY KEY,
	kind          TEXT    NOT NULL,
	actor         TEXT    NOT NULL,
	state         TEXT    NOT NULL,
	node          TEXT    NOT NULL,
	total         INTEGER NOT NULL,
	done          INTEGER NOT NULL,
	last_event_id TEXT    NOT NULL,
	result        BLOB    NOT NULL,
	error         TEXT    NOT NULL,
	started_at    INTEGER NOT NULL,
	running_at    INTEGER,
	finished_at   INTEGER,
	cancelled_by  TEXT    NOT NULL
) WITHOUT ROWID;

INSERT OR IGNORE INTO hookrelay_schema_migrations (version, applied_at) VALUES (35, CAST((julianday('now') - 2440587.5) * 86400000000 AS INTEGER));
