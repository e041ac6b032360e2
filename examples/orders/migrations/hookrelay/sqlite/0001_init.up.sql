-- hookrelay's migration 0001_init.sql, its tables named as hookrelay_events is.
CREATE TABLE IF NOT EXISTS hookrelay_schema_migrations (
	version    INTEGER NOT NULL PRIMARY KEY,
	applied_at INTEGER NOT NULL
);

-- 0001: the initial schema. Times are INTEGER unix microseconds, UTC.
-- AUTOINCREMENT keeps ids from being reused after deletes, as in PostgreSQL.

CREATE TABLE hookrelay_events (
	id                TEXT    NOT NULL PRIMARY KEY, -- hookrelay's sortable id
	source            TEXT    NOT NULL,
	provider_event_id TEXT    NOT NULL,
	id_origin         TEXT    NOT NULL,
	type              TEXT    NOT NULL DEFAULT '',
	body              BLOB    NOT NULL,             -- raw bytes, never re-encoded
	content_type      TEXT    NOT NULL DEFAULT '',
	headers           TEXT    NOT NULL DEFAULT '{}', -- JSON of map[string][]string
	signature_slot    INTEGER NOT NULL,
	occurred_at       INTEGER,                       -- NULL when the provider asserts no time
	received_at       INTEGER NOT NULL,
	UNIQUE (source, provider_event_id)               -- the dedupe
);

CREATE INDEX events_source_type_received_at ON hookrelay_events (source, type, received_at);
CREATE INDEX events_received_at ON hookrelay_events (received_at);
CREATE INDEX events_source_id ON hookrelay_events (source, id);

CREATE TABLE hookrelay_deliveries (
	id               INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
	event_id         TEXT    NOT NULL REFERENCES hookrelay_events (id) ON DELETE CASCADE,
	destination      TEXT    NOT NULL,
	status           TEXT    NOT NULL,
	attempts         INTEGER NOT NULL DEFAULT 0,
	replay_count     INTEGER NOT NULL DEFAULT 0,
	ordering_key     TEXT    NOT NULL DEFAULT '', -- '' when the destination does not order
	next_attempt_at  INTEGER NOT NULL,
	lease_until      INTEGER,                     -- set while processing
	lease_token      TEXT,                        -- the claim guard, set while processing
	last_error       TEXT    NOT NULL DEFAULT '',
	last_status_code INTEGER NOT NULL DEFAULT 0,  -- 0 when no HTTP response was received
	created_at       INTEGER NOT NULL,
	updated_at       INTEGER NOT NULL,
	finished_at      INTEGER,                     -- set when final
	-- Its index also serves lookups and cascades by event_id.
	UNIQUE (event_id, destination)
);

-- For the claim: due live deliveries of one destination.
CREATE INDEX deliveries_due ON hookrelay_deliveries (destination, next_attempt_at)
	WHERE status IN ('pending', 'failed');
-- For reclaiming expired leases.
CREATE INDEX deliveries_lease ON hookrelay_deliveries (lease_until)
	WHERE status = 'processing';
-- For per-key ordering: the oldest live delivery of a key, by event arrival.
CREATE INDEX deliveries_ordering ON hookrelay_deliveries (destination, ordering_key, event_id)
	WHERE status IN ('pending', 'failed', 'processing') AND ordering_key <> '';

CREATE TABLE hookrelay_attempts (
	id               INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
	delivery_id      INTEGER NOT NULL REFERENCES hookrelay_deliveries (id) ON DELETE CASCADE,
	attempted_at     INTEGER NOT NULL,
	duration_ms      INTEGER NOT NULL,
	status_code      INTEGER NOT NULL DEFAULT 0, -- 0 when no HTTP response was received
	error            TEXT    NOT NULL DEFAULT '',
	response_snippet BLOB    NOT NULL DEFAULT x'' -- at most 1 KiB of the response body, as received
);

CREATE INDEX attempts_delivery_id ON hookrelay_attempts (delivery_id);

CREATE TABLE hookrelay_replays (
	id        INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
	at        INTEGER NOT NULL,
	actor     TEXT    NOT NULL,
	filter    TEXT    NOT NULL, -- JSON
	matched   INTEGER NOT NULL,
	rearmed   INTEGER NOT NULL,
	in_flight INTEGER NOT NULL,
	dry_run   INTEGER NOT NULL  -- 0 or 1
);

-- Rejections are listed and trimmed in id order, newest last; no other index.
CREATE TABLE hookrelay_rejections (
	id          INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
	at          INTEGER NOT NULL,
	source      TEXT    NOT NULL,
	reason      TEXT    NOT NULL,
	remote_addr TEXT    NOT NULL DEFAULT '',
	body_size   INTEGER NOT NULL,
	skew_ms     INTEGER  -- NULL when the request carried no readable timestamp
);

INSERT OR IGNORE INTO hookrelay_schema_migrations (version, applied_at) VALUES (1, CAST((julianday('now') - 2440587.5) * 86400000000 AS INTEGER));
