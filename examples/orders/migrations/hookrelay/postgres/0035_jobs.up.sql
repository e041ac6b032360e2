-- hookrelay's migration 0035_jobs.sql, its tables named as hookrelay.events is.
CREATE SCHEMA IF NOT EXISTS "hookrelay";
CREATE TABLE IF NOT EXISTS hookrelay.schema_migrations (
	version    integer PRIMARY KEY,
	applied_at timestamptz NOT NULL DEFAULT now()
);

-- 0035: replay and backfill jobs live in the database, so that every node
-- of a fleet shows them with their progress and any node can ask one to
-- stop (cancelled_by), which the node that runs it (node) reads after
-- each batch. Ids begin with the start time: the primary key orders them.
CREATE TABLE hookrelay.jobs (
	id            text COLLATE "C" PRIMARY KEY,
	kind          text NOT NULL,
	actor         text NOT NULL,
	state         text NOT NULL,
	node          text NOT NULL,
	total         bigint NOT NULL,
	done          bigint NOT NULL,
	last_event_id text NOT NULL,
	result        bytea NOT NULL,
	error         text NOT NULL,
	started_at    timestamptz NOT NULL,
	running_at    timestamptz,
	finished_at   timestamptz,
	cancelled_by  text NOT NULL
);

INSERT INTO hookrelay.schema_migrations (version) VALUES (35) ON CONFLICT (version) DO NOTHING;
