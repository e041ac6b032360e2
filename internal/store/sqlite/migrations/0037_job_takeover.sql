-- 0037: a job whose node dies is taken over by another node (see the
-- PostgreSQL migration of the same number). A SQLite file has one process:
-- the process that opens it next takes over the jobs of the one that died.
ALTER TABLE hookrelay.jobs ADD COLUMN request BLOB NOT NULL DEFAULT x'';
ALTER TABLE hookrelay.jobs ADD COLUMN last_destination TEXT NOT NULL DEFAULT '';
ALTER TABLE hookrelay.jobs ADD COLUMN lease_until INTEGER NOT NULL DEFAULT 0;
ALTER TABLE hookrelay.jobs ADD COLUMN taken_over_from TEXT NOT NULL DEFAULT '';

CREATE INDEX jobs_lease ON hookrelay.jobs (lease_until) WHERE finished_at IS NULL;
