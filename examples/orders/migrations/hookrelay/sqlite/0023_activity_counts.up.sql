-- hookrelay's migration 0023_activity_counts.sql, its tables named as hookrelay_events is.
CREATE TABLE IF NOT EXISTS hookrelay_schema_migrations (
	version    INTEGER NOT NULL PRIMARY KEY,
	applied_at INTEGER NOT NULL
);

-- 0023: the console's activity charts read counters kept per minute as
-- rows are written, instead of counting the events and the attempts of
-- their window: a day's chart read every event and attempt of the day,
-- seconds at a few million.
--
-- minute is the unix microsecond of the minute's start (UTC). received
-- counts the events by received_at; delivered and failed count the
-- attempts by attempted_at: answered 2xx, and anything else (another
-- code, a timeout, a connection error). Nothing is counted down: pruning
-- deletes events and attempts but not their minutes, which retention
-- deletes by their own time (Prune).
--
-- SQLite has no statement-level triggers. With its one writer a row
-- trigger costs one small write that never waits on another, as the
-- delivery counts of 0004 do: an upsert of the minute's row, which the
-- inserts of one batch find in the same page.
CREATE TABLE hookrelay_activity_minutes (
	minute    INTEGER NOT NULL PRIMARY KEY,
	received  INTEGER NOT NULL DEFAULT 0,
	delivered INTEGER NOT NULL DEFAULT 0,
	failed    INTEGER NOT NULL DEFAULT 0
);

-- The counts of the rows already stored.
INSERT INTO hookrelay_activity_minutes (minute, received)
SELECT received_at - received_at % 60000000, count(*) FROM hookrelay_events GROUP BY 1;

INSERT INTO hookrelay_activity_minutes (minute, delivered, failed)
SELECT attempted_at - attempted_at % 60000000,
	sum(status_code BETWEEN 200 AND 299), sum(status_code NOT BETWEEN 200 AND 299)
FROM hookrelay_attempts WHERE true GROUP BY 1
ON CONFLICT (minute) DO UPDATE SET delivered = excluded.delivered, failed = excluded.failed;

CREATE TRIGGER activity_received AFTER INSERT ON hookrelay_events
BEGIN
	INSERT INTO hookrelay_activity_minutes (minute, received) VALUES (NEW.received_at - NEW.received_at % 60000000, 1)
	ON CONFLICT (minute) DO UPDATE SET received = received + 1;
END;

-- The delivered and failed counts come from the attempts written: the
-- statement that records outcomes inserts one per outcome. Should an
-- outcome ever be recorded without an attempt row (a delivery that
-- succeeded at once keeping its facts on its own row), the same counts
-- would come from the deliveries' status changes instead — a trigger on
-- deliveries adding its outcome to its minute — and the reader, which
-- reads only activity_minutes, would not change.
CREATE TRIGGER activity_attempted AFTER INSERT ON hookrelay_attempts
BEGIN
	INSERT INTO hookrelay_activity_minutes (minute, delivered, failed)
	VALUES (NEW.attempted_at - NEW.attempted_at % 60000000,
		NEW.status_code BETWEEN 200 AND 299, NEW.status_code NOT BETWEEN 200 AND 299)
	ON CONFLICT (minute) DO UPDATE SET
		delivered = delivered + excluded.delivered, failed = failed + excluded.failed;
END;

-- The charts no longer count attempts by their time: every outcome paid
-- for this index's entry.
DROP INDEX attempts_attempted_at;

INSERT OR IGNORE INTO hookrelay_schema_migrations (version, applied_at) VALUES (23, CAST((julianday('now') - 2440587.5) * 86400000000 AS INTEGER));
