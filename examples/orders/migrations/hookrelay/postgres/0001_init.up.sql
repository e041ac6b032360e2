-- hookrelay's migration 0001_init.sql, its tables named as hookrelay.events is.
CREATE SCHEMA IF NOT EXISTS "hookrelay";
CREATE TABLE IF NOT EXISTS hookrelay.schema_migrations (
	version    integer PRIMARY KEY,
	applied_at timestamptz NOT NULL DEFAULT now()
);

-- 0001: the initial schema. Keys and names use the "C" collation so that
-- ordering and uniqueness are bytewise, as in SQLite, whatever the
-- database's default collation.

CREATE TABLE hookrelay.events (
	id                text COLLATE "C" NOT NULL PRIMARY KEY, -- hookrelay's sortable id
	source            text COLLATE "C" NOT NULL,
	provider_event_id text COLLATE "C" NOT NULL,
	id_origin         text NOT NULL,
	type              text COLLATE "C" NOT NULL DEFAULT '',
	body              bytea NOT NULL,                -- raw bytes, never re-encoded
	content_type      text NOT NULL DEFAULT '',
	headers           text NOT NULL DEFAULT '{}',    -- JSON of map[string][]string
	signature_slot    integer NOT NULL,
	occurred_at       timestamptz,                   -- NULL when the provider asserts no time
	received_at       timestamptz NOT NULL,
	UNIQUE (source, provider_event_id)               -- the dedupe
);

CREATE INDEX events_source_type_received_at ON hookrelay.events (source, type, received_at);
CREATE INDEX events_received_at ON hookrelay.events (received_at);
CREATE INDEX events_source_id ON hookrelay.events (source, id);

CREATE TABLE hookrelay.deliveries (
	id               bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	event_id         text COLLATE "C" NOT NULL REFERENCES hookrelay.events (id) ON DELETE CASCADE,
	destination      text COLLATE "C" NOT NULL,
	status           text NOT NULL,
	attempts         integer NOT NULL DEFAULT 0,
	replay_count     integer NOT NULL DEFAULT 0,
	ordering_key     text COLLATE "C" NOT NULL DEFAULT '', -- '' when the destination does not order
	next_attempt_at  timestamptz NOT NULL,
	lease_until      timestamptz,                 -- set while processing
	lease_token      text,                        -- the claim guard, set while processing
	last_error       text NOT NULL DEFAULT '',
	last_status_code integer NOT NULL DEFAULT 0,  -- 0 when no HTTP response was received
	created_at       timestamptz NOT NULL,
	updated_at       timestamptz NOT NULL,
	finished_at      timestamptz,                 -- set when final
	-- Its index also serves lookups and cascades by event_id.
	UNIQUE (event_id, destination)
);

-- For the claim: due live deliveries of one destination.
CREATE INDEX deliveries_due ON hookrelay.deliveries (destination, next_attempt_at)
	WHERE status IN ('pending', 'failed');
-- For reclaiming expired leases.
CREATE INDEX deliveries_lease ON hookrelay.deliveries (lease_until)
	WHERE status = 'processing';
-- For per-key ordering: the oldest live delivery of a key, by event arrival.
CREATE INDEX deliveries_ordering ON hookrelay.deliveries (destination, ordering_key, event_id)
	WHERE status IN ('pending', 'failed', 'processing') AND ordering_key <> '';

CREATE TABLE hookrelay.attempts (
	id               bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	delivery_id      bigint NOT NULL REFERENCES hookrelay.deliveries (id) ON DELETE CASCADE,
	attempted_at     timestamptz NOT NULL,
	duration_ms      bigint NOT NULL,
	status_code      integer NOT NULL DEFAULT 0, -- 0 when no HTTP response was received
	error            text NOT NULL DEFAULT '',
	response_snippet bytea NOT NULL DEFAULT ''::bytea -- at most 1 KiB of the response body, as received
);

CREATE INDEX attempts_delivery_id ON hookrelay.attempts (delivery_id);

CREATE TABLE hookrelay.replays (
	id        bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	at        timestamptz NOT NULL,
	actor     text NOT NULL,
	filter    text NOT NULL, -- JSON
	matched   bigint NOT NULL,
	rearmed   bigint NOT NULL,
	in_flight bigint NOT NULL,
	dry_run   boolean NOT NULL
);

-- Rejections are listed and trimmed in id order, newest last; no other index.
CREATE TABLE hookrelay.rejections (
	id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	at          timestamptz NOT NULL,
	source      text NOT NULL,
	reason      text NOT NULL,
	remote_addr text NOT NULL DEFAULT '',
	body_size   bigint NOT NULL,
	skew_ms     bigint  -- NULL when the request carried no readable timestamp
);

INSERT INTO hookrelay.schema_migrations (version) VALUES (1) ON CONFLICT (version) DO NOTHING;
