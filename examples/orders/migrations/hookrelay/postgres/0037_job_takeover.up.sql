-- hookrelay's migration 0037_job_takeover.sql, its tables named as hookrelay.events is.
CREATE SCHEMA IF NOT EXISTS "hookrelay";
CREATE TABLE IF NOT EXISTS hookrelay.schema_migrations (
	version    integer PRIMARY KEY,
	applied_at timestamptz NOT NULL DEFAULT now()
);

-- 0037: a job whose node dies is taken over by another node. The job keeps
-- what it does (request, as the admin API resolved it) and where its walk
-- is (last_event_id, and last_destination for a walk over deliveries), so
-- that the walk resumes where it stopped; its node renews lease_until while
-- it runs, and another node takes over a job not finished whose lease ran
-- out (taken_over_from names the node it had). A job running when this
-- migration applies has no request and an expired lease: the node that
-- takes it over ends it as failed.
ALTER TABLE hookrelay.jobs
	ADD COLUMN request bytea NOT NULL DEFAULT ''::bytea,
	ADD COLUMN last_destination text NOT NULL DEFAULT '',
	ADD COLUMN lease_until timestamptz NOT NULL DEFAULT 'epoch',
	ADD COLUMN taken_over_from text NOT NULL DEFAULT '';

-- The sweep every node makes for jobs to take over reads the few jobs
-- not finished.
CREATE INDEX jobs_lease ON hookrelay.jobs (lease_until) WHERE finished_at IS NULL;

INSERT INTO hookrelay.schema_migrations (version) VALUES (37) ON CONFLICT (version) DO NOTHING;
