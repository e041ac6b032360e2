-- hookrelay's migration 0024_failure_counts.sql, its tables named as hookrelay_events is.
CREATE TABLE IF NOT EXISTS hookrelay_schema_migrations (
	version    INTEGER NOT NULL PRIMARY KEY,
	applied_at INTEGER NOT NULL
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
ALTER TABLE hookrelay_deliveries ADD COLUMN failure_kind TEXT NOT NULL DEFAULT 'other';

-- The kinds of the failed and dead deliveries already stored, by
-- failure.Classify's rules as written when this migration was: a CASE
-- over the same columns, in the rules' order. (A later change to the
-- rules classifies the outcomes recorded after it; a migration of its own
-- would classify the stored ones again.) Other deliveries are never read
-- for their kind.
UPDATE hookrelay_deliveries SET failure_kind = CASE
	WHEN last_status_code BETWEEN 500 AND 599 THEN '5xx'
	WHEN last_status_code BETWEEN 400 AND 499 THEN '4xx'
	WHEN last_status_code BETWEEN 300 AND 399 THEN '3xx'
	WHEN last_status_code <> 0 THEN 'other'
	WHEN instr(last_error, 'handler panicked: ') > 0 THEN 'handler'
	WHEN instr(last_error, 'sign delivery: ') > 0 THEN 'signature'
	WHEN instr(last_error, 'timeout after ') > 0 OR instr(last_error, 'no answer within ') > 0 OR instr(last_error, 'context deadline exceeded') > 0 OR instr(last_error, 'i/o timeout') > 0 OR instr(last_error, 'TLS handshake timeout') > 0 THEN 'timeout'
	WHEN instr(last_error, ': lookup ') > 0 OR instr(last_error, 'no such host') > 0 OR instr(last_error, 'server misbehaving') > 0 THEN 'dns'
	WHEN instr(last_error, 'tls: ') > 0 OR instr(last_error, 'x509: ') > 0 OR instr(last_error, 'server gave HTTP response to HTTPS client') > 0 THEN 'tls'
	WHEN instr(last_error, 'connection refused') > 0 THEN 'refused'
	WHEN instr(last_error, 'connection reset') > 0 OR instr(last_error, 'broken pipe') > 0 OR instr(last_error, 'EOF') > 0 OR instr(last_error, 'no route to host') > 0 OR instr(last_error, 'network is unreachable') > 0 OR instr(last_error, 'host is down') > 0 OR instr(last_error, 'server closed idle connection') > 0 OR instr(last_error, 'transport connection broken') > 0 OR instr(last_error, 'use of closed network connection') > 0 THEN 'connection'
	ELSE 'other' END
WHERE status IN ('failed', 'dead');

-- The counts, one row per (destination, status, kind) of the failed and
-- dead deliveries, kept by row triggers as delivery_counts is (0004):
-- SQLite's one writer makes each a small write that never waits. A row
-- whose count falls to 0 stays, and is not read.
CREATE TABLE hookrelay_failure_counts (
	destination TEXT    NOT NULL,
	status      TEXT    NOT NULL,
	kind        TEXT    NOT NULL,
	n           INTEGER NOT NULL,
	PRIMARY KEY (destination, status, kind)
) WITHOUT ROWID;

INSERT INTO hookrelay_failure_counts (destination, status, kind, n)
SELECT destination, status, failure_kind, count(*) FROM hookrelay_deliveries
WHERE status IN ('failed', 'dead')
GROUP BY destination, status, failure_kind;

CREATE TRIGGER failure_counts_insert AFTER INSERT ON hookrelay_deliveries
WHEN NEW.status IN ('failed', 'dead')
BEGIN
	INSERT INTO hookrelay_failure_counts (destination, status, kind, n) VALUES (NEW.destination, NEW.status, NEW.failure_kind, 1)
	ON CONFLICT (destination, status, kind) DO UPDATE SET n = n + 1;
END;

CREATE TRIGGER failure_counts_leave AFTER UPDATE OF status, destination, failure_kind ON hookrelay_deliveries
WHEN OLD.status IN ('failed', 'dead')
	AND (NEW.status <> OLD.status OR NEW.destination <> OLD.destination OR NEW.failure_kind <> OLD.failure_kind)
BEGIN
	UPDATE hookrelay_failure_counts SET n = n - 1
	WHERE destination = OLD.destination AND status = OLD.status AND kind = OLD.failure_kind;
END;

CREATE TRIGGER failure_counts_enter AFTER UPDATE OF status, destination, failure_kind ON hookrelay_deliveries
WHEN NEW.status IN ('failed', 'dead')
	AND (NEW.status <> OLD.status OR NEW.destination <> OLD.destination OR NEW.failure_kind <> OLD.failure_kind)
BEGIN
	INSERT INTO hookrelay_failure_counts (destination, status, kind, n) VALUES (NEW.destination, NEW.status, NEW.failure_kind, 1)
	ON CONFLICT (destination, status, kind) DO UPDATE SET n = n + 1;
END;

CREATE TRIGGER failure_counts_delete AFTER DELETE ON hookrelay_deliveries
WHEN OLD.status IN ('failed', 'dead')
BEGIN
	UPDATE hookrelay_failure_counts SET n = n - 1
	WHERE destination = OLD.destination AND status = OLD.status AND kind = OLD.failure_kind;
END;

-- The first and last seen of a group (its deliveries' last changes) and
-- the window of its events are the ends of these indexes' ranges for the
-- group: four index probes a group, whatever its count. They hold the
-- failed and dead deliveries alone, and replace the covering index of
-- 0022, which served the grouping of every failure. A query uses them by
-- naming their condition as it is written here.
DROP INDEX deliveries_failures;
CREATE INDEX deliveries_failures_seen ON hookrelay_deliveries (destination, status, failure_kind, updated_at)
	WHERE status IN ('failed', 'dead');
CREATE INDEX deliveries_failures_events ON hookrelay_deliveries (destination, status, failure_kind, event_id)
	WHERE status IN ('failed', 'dead');

INSERT OR IGNORE INTO hookrelay_schema_migrations (version, applied_at) VALUES (24, CAST((julianday('now') - 2440587.5) * 86400000000 AS INTEGER));
