-- hookrelay's migration 0023_activity_counts.sql, its tables named as hookrelay.events is.
CREATE SCHEMA IF NOT EXISTS "hookrelay";
CREATE TABLE IF NOT EXISTS hookrelay.schema_migrations (
	version    integer PRIMARY KEY,
	applied_at timestamptz NOT NULL DEFAULT now()
);

-- 0023: the console's activity charts read counters kept per minute as
-- rows are written, instead of counting the events and the attempts of
-- their window: a day's chart read every event and attempt of the day,
-- seconds at a few million.
--
-- As with the delivery counts of 0004, no writer updates a shared row:
-- each statement that inserts events or attempts appends, from a
-- statement-level trigger over its transition table, one row per minute
-- it touched to activity_deltas, an insert-only table that no two writers
-- lock in common. The store folds those rows into activity_minutes every
-- second (FoldCounts: DELETE ... RETURNING and the upsert of their sums
-- in one statement, so that a reader sees the rows before or after, never
-- both). A minute's count is its activity_minutes row plus its deltas not
-- yet folded. A minute is the UTC minute of the row's time, whatever the
-- session's time zone.
--
-- received counts the events by received_at. delivered and failed count
-- the attempts by attempted_at: answered 2xx, and anything else (another
-- code, a timeout, a connection error). Nothing is counted down: pruning
-- deletes events and attempts but not their minutes, which retention
-- deletes by their own time (Prune).
CREATE TABLE hookrelay.activity_minutes (
	minute    timestamptz NOT NULL PRIMARY KEY,
	received  bigint      NOT NULL DEFAULT 0,
	delivered bigint      NOT NULL DEFAULT 0,
	failed    bigint      NOT NULL DEFAULT 0
);

-- No index: the fold reads it whole every second, so it holds a second's
-- statements at most; an index would only slow the appends.
CREATE TABLE hookrelay.activity_deltas (
	minute    timestamptz NOT NULL,
	received  bigint      NOT NULL DEFAULT 0,
	delivered bigint      NOT NULL DEFAULT 0,
	failed    bigint      NOT NULL DEFAULT 0
);

-- The counts of the rows already stored.
INSERT INTO hookrelay.activity_minutes (minute, received)
SELECT date_trunc('minute', received_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', count(*)
FROM hookrelay.events GROUP BY 1;

INSERT INTO hookrelay.activity_minutes AS a (minute, delivered, failed)
SELECT date_trunc('minute', attempted_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC',
	count(*) FILTER (WHERE status_code BETWEEN 200 AND 299),
	count(*) FILTER (WHERE status_code NOT BETWEEN 200 AND 299)
FROM hookrelay.attempts GROUP BY 1
ON CONFLICT (minute) DO UPDATE SET delivered = excluded.delivered, failed = excluded.failed;

CREATE FUNCTION hookrelay.activity_received() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	INSERT INTO hookrelay.activity_deltas (minute, received)
	SELECT date_trunc('minute', received_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', count(*)
	FROM new_rows GROUP BY 1;
	RETURN NULL;
END
$$;

-- The delivered and failed counts come from the attempts written: the
-- statement that records outcomes inserts one per outcome. Should an
-- outcome ever be recorded without an attempt row (a delivery that
-- succeeded at once keeping its facts on its own row), the same counts
-- would come from the deliveries' status changes instead — a trigger on
-- deliveries appending to activity_deltas the outcomes of a statement by
-- minute — and the reader, which reads only these two tables, would not
-- change.
CREATE FUNCTION hookrelay.activity_attempted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	INSERT INTO hookrelay.activity_deltas (minute, delivered, failed)
	SELECT date_trunc('minute', attempted_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC',
		count(*) FILTER (WHERE status_code BETWEEN 200 AND 299),
		count(*) FILTER (WHERE status_code NOT BETWEEN 200 AND 299)
	FROM new_rows GROUP BY 1;
	RETURN NULL;
END
$$;

CREATE TRIGGER activity_received AFTER INSERT ON hookrelay.events
	REFERENCING NEW TABLE AS new_rows
	FOR EACH STATEMENT EXECUTE FUNCTION hookrelay.activity_received();
CREATE TRIGGER activity_attempted AFTER INSERT ON hookrelay.attempts
	REFERENCING NEW TABLE AS new_rows
	FOR EACH STATEMENT EXECUTE FUNCTION hookrelay.activity_attempted();

-- The charts no longer count attempts by their time: every outcome paid
-- for this index's entry.
DROP INDEX hookrelay.attempts_attempted_at;

INSERT INTO hookrelay.schema_migrations (version) VALUES (23) ON CONFLICT (version) DO NOTHING;
