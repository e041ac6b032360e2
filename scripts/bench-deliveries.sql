-- bench-deliveries.sql creates a table with the columns and indexes of
-- hookrelay.deliveries (migrations 0001-0038), named by the psql
-- variable deliveries_table, for the scripts that measure its statements
-- in one backend.
CREATE TABLE :"deliveries_table" (
	id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	event_id text COLLATE "C" NOT NULL, destination text COLLATE "C" NOT NULL, status text NOT NULL,
	attempts integer NOT NULL DEFAULT 0, replay_count integer NOT NULL DEFAULT 0,
	ordering_key text COLLATE "C" NOT NULL DEFAULT '', next_attempt_at timestamptz NOT NULL,
	lease_until timestamptz, lease_token text, last_error text NOT NULL DEFAULT '',
	last_status_code integer NOT NULL DEFAULT 0, created_at timestamptz NOT NULL, updated_at timestamptz NOT NULL,
	finished_at timestamptz, order_at timestamptz NOT NULL, failure_kind text NOT NULL DEFAULT 'other',
	last_attempted_at timestamptz, last_duration_ms bigint NOT NULL DEFAULT 0,
	UNIQUE (event_id, destination)
);
CREATE INDEX ON :"deliveries_table" (event_id) WHERE status = 'dead';
CREATE INDEX ON :"deliveries_table" (destination, next_attempt_at, id) WHERE status IN ('pending', 'failed');
CREATE INDEX ON :"deliveries_table" (event_id, destination) WHERE status = 'failed';
CREATE INDEX ON :"deliveries_table" (destination, status, failure_kind, event_id) WHERE status IN ('failed', 'dead');
CREATE INDEX ON :"deliveries_table" (destination, status, failure_kind, updated_at) WHERE status IN ('failed', 'dead');
CREATE INDEX ON :"deliveries_table" (destination, ordering_key, order_at, id) WHERE status IN ('pending', 'failed', 'processing') AND ordering_key <> '';
CREATE INDEX ON :"deliveries_table" (destination, lease_until) WHERE status = 'processing';
CREATE INDEX ON :"deliveries_table" (event_id, destination) WHERE status = 'processing';
CREATE INDEX ON :"deliveries_table" (event_id, destination) WHERE status = 'skipped';
CREATE INDEX ON :"deliveries_table" (event_id, destination) WHERE status = 'purged';
