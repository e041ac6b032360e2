-- hookrelay's migration 0024_failure_counts.sql, its tables named as hookrelay.events is.
CREATE SCHEMA IF NOT EXISTS "hookrelay";
CREATE TABLE IF NOT EXISTS hookrelay.schema_migrations (
	version    integer PRIMARY KEY,
	applied_at timestamptz NOT NULL DEFAULT now()
);

-- 0024: the failures view (Failures) reads counts kept as deliveries
-- change state, keyed by destination, status and failure kind, instead of
-- grouping every failed and dead delivery: its cost no longer grows with
-- the number of failures.
--
-- failure_kind is failure.Classify of the delivery's last status code and
-- last error, written with them by the statement that records an outcome
-- (and set back to 'other', Classify of no code and no error, by a
-- replay, which clears them). A delivery not yet completed has that too.
-- A constant default rewrites nothing.
ALTER TABLE hookrelay.deliveries ADD COLUMN failure_kind text NOT NULL DEFAULT 'other';

-- The kinds of the failed and dead deliveries already stored, by
-- failure.Classify's rules as written when this migration was: a CASE
-- over the same columns, in the rules' order. (A later change to the
-- rules classifies the outcomes recorded after it; a migration of its own
-- would classify the stored ones again.) Other deliveries are never read
-- for their kind. No index holds failure_kind yet, so the rows are
-- updated in place.
UPDATE hookrelay.deliveries SET failure_kind = CASE
	WHEN last_status_code BETWEEN 500 AND 599 THEN '5xx'
	WHEN last_status_code BETWEEN 400 AND 499 THEN '4xx'
	WHEN last_status_code BETWEEN 300 AND 399 THEN '3xx'
	WHEN last_status_code <> 0 THEN 'other'
	WHEN strpos(last_error, 'handler panicked: ') > 0 THEN 'handler'
	WHEN strpos(last_error, 'sign delivery: ') > 0 THEN 'signature'
	WHEN strpos(last_error, 'timeout after ') > 0 OR strpos(last_error, 'no answer within ') > 0 OR strpos(last_error, 'context deadline exceeded') > 0 OR strpos(last_error, 'i/o timeout') > 0 OR strpos(last_error, 'TLS handshake timeout') > 0 THEN 'timeout'
	WHEN strpos(last_error, ': lookup ') > 0 OR strpos(last_error, 'no such host') > 0 OR strpos(last_error, 'server misbehaving') > 0 THEN 'dns'
	WHEN strpos(last_error, 'tls: ') > 0 OR strpos(last_error, 'x509: ') > 0 OR strpos(last_error, 'server gave HTTP response to HTTPS client') > 0 THEN 'tls'
	WHEN strpos(last_error, 'connection refused') > 0 THEN 'refused'
	WHEN strpos(last_error, 'connection reset') > 0 OR strpos(last_error, 'broken pipe') > 0 OR strpos(last_error, 'EOF') > 0 OR strpos(last_error, 'no route to host') > 0 OR strpos(last_error, 'network is unreachable') > 0 OR strpos(last_error, 'host is down') > 0 OR strpos(last_error, 'server closed idle connection') > 0 OR strpos(last_error, 'transport connection broken') > 0 OR strpos(last_error, 'use of closed network connection') > 0 THEN 'connection'
	ELSE 'other' END
WHERE status IN ('failed', 'dead');

-- The counts, as delivery_count_deltas keeps them (0004): each statement
-- that writes deliveries appends the net change of the failed and dead
-- ones per (destination, status, kind), and FoldCounts folds them. A
-- table of its own, not a column of delivery_count_deltas, so that a
-- process of an earlier version, which folds those by (destination,
-- status), never merges two kinds.
CREATE TABLE hookrelay.failure_count_deltas (
	destination text COLLATE "C" NOT NULL,
	status      text NOT NULL,
	kind        text NOT NULL,
	n           bigint NOT NULL
);

INSERT INTO hookrelay.failure_count_deltas (destination, status, kind, n)
SELECT destination, status, failure_kind, count(*) FROM hookrelay.deliveries
WHERE status IN ('failed', 'dead')
GROUP BY destination, status, failure_kind;

-- The same statement-level triggers of 0004 append both: one trigger a
-- statement still, which reads its transition tables once.
CREATE OR REPLACE FUNCTION hookrelay.delivery_counts_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	INSERT INTO hookrelay.delivery_count_deltas (destination, status, n)
	SELECT destination, status, count(*) FROM new_rows GROUP BY destination, status;
	INSERT INTO hookrelay.failure_count_deltas (destination, status, kind, n)
	SELECT destination, status, failure_kind, count(*) FROM new_rows
	WHERE status IN ('failed', 'dead')
	GROUP BY destination, status, failure_kind;
	RETURN NULL;
END
$$;

CREATE OR REPLACE FUNCTION hookrelay.delivery_counts_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	WITH x AS (
		SELECT destination, status, failure_kind, -1 AS n FROM old_rows
		UNION ALL
		SELECT destination, status, failure_kind, 1 FROM new_rows
	), counts AS (
		INSERT INTO hookrelay.delivery_count_deltas (destination, status, n)
		SELECT destination, status, sum(n) FROM x
		GROUP BY destination, status
		HAVING sum(n) <> 0
	)
	INSERT INTO hookrelay.failure_count_deltas (destination, status, kind, n)
	SELECT destination, status, failure_kind, sum(n) FROM x
	WHERE status IN ('failed', 'dead')
	GROUP BY destination, status, failure_kind
	HAVING sum(n) <> 0;
	RETURN NULL;
END
$$;

CREATE OR REPLACE FUNCTION hookrelay.delivery_counts_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	INSERT INTO hookrelay.delivery_count_deltas (destination, status, n)
	SELECT destination, status, -count(*) FROM old_rows GROUP BY destination, status;
	INSERT INTO hookrelay.failure_count_deltas (destination, status, kind, n)
	SELECT destination, status, failure_kind, -count(*) FROM old_rows
	WHERE status IN ('failed', 'dead')
	GROUP BY destination, status, failure_kind;
	RETURN NULL;
END
$$;

-- The first and last seen of a group (its deliveries' last changes) and
-- the window of its events are the ends of these indexes' ranges for the
-- group: four index probes a group, whatever its count. They hold the
-- failed and dead deliveries alone, so a done or pending one never pays
-- for their entries, and replace the index of 0022, which served the
-- grouping of every failure.
DROP INDEX hookrelay.deliveries_failures;
CREATE INDEX deliveries_failures_seen ON hookrelay.deliveries (destination, status, failure_kind, updated_at)
	WHERE status IN ('failed', 'dead');
CREATE INDEX deliveries_failures_events ON hookrelay.deliveries (destination, status, failure_kind, event_id)
	WHERE status IN ('failed', 'dead');

INSERT INTO hookrelay.schema_migrations (version) VALUES (24) ON CONFLICT (version) DO NOTHING;
