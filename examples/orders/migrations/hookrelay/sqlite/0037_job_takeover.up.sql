-- hookrelay's migration 0037_job_takeover.sql, its tables named as hookrelay_events is.
CREATE TABLE IF NOT EXISTS hookrelay_schema_migrations (
	version    INTEGER NOT NULL PRIMARY KEY,
	applied_at INTEGER NOT NULL
);

-- 0037: a job whose node dies is taken over by another node (see the
-- PostgreSQL migration of the same number). A SQLite file has one process:
-- the process that opens it next takes over the jobs of the one that died.
ALTER TABLE hookrelay_jobs ADD COLUMN request BLOB NOT NULL DEFAULT x'';
ALTER TABLE hookrelay_jobs ADD COLUMN last_destination TEXT NOT NULL DEFAULT '';
ALTER TABLE hookrelay_jobs ADD COLUMN lease_until INTEGER NOT NULL DEFAULT 0;
ALTER TABLE hookrelay_jobs ADD COLUMN taken_over_from TEXT NOT NULL DEFAULT '';

CREATE INDEX jobs_lease ON hookrelay_jobs (lease_until) WHERE finished_at IS NULL;

INSERT OR IGNORE INTO hookrelay_schema_migrations (version, applied_at) VALUES (37, CAST((julianday('now') - 2440587.5) * 86400000000 AS INTEGER));
