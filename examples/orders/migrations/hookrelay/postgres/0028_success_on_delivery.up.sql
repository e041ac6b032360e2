-- hookrelay's migration 0028_success_on_delivery.sql, its tables named as hookrelay.events is.
CREATE SCHEMA IF NOT EXISTS "hookrelay";
CREATE TABLE IF NOT EXISTS hookrelay.schema_migrations (
	version    integer PRIMARY KEY,
	applied_at timestamptz NOT NULL DEFAULT now()
);

-- 0028: a successful attempt is kept on its delivery, not in attempts.
--
-- Most deliveries succeed at their first attempt. Writing that attempt as
-- a row of its own cost every delivery an insert and three index entries,
-- a third of the database's work per delivery. The outcome's UPDATE of the
-- delivery now records when its last attempt started and how long it
-- took (the response code was already last_status_code), and attempts
-- holds only the attempts that did not end the delivery done. Readers
-- list a done delivery's attempts as its rows plus the one its columns
-- describe. Replay, which starts a new round on the same row, first
-- writes that attempt into attempts, so that no round's success is lost.
-- Rows completed before this migration keep their attempt rows and leave
-- last_attempted_at NULL.
ALTER TABLE hookrelay.deliveries
	ADD COLUMN last_attempted_at timestamptz,
	ADD COLUMN last_duration_ms  bigint NOT NULL DEFAULT 0;

-- The activity counters (0023) counted each attempt as its row was
-- inserted. The attempt that ends a delivery done has no row now: it is
-- counted, by the minute it started, when the outcome sets its delivery
-- done, and rows of attempts count only the attempts that did not
-- succeed — a 2xx row is a replay's copy of an attempt that was counted
-- when it ended its delivery.
CREATE OR REPLACE FUNCTION hookrelay.activity_attempted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	INSERT INTO hookrelay.activity_deltas (minute, failed)
	SELECT date_trunc('minute', attempted_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', count(*)
	FROM new_rows WHERE status_code NOT BETWEEN 200 AND 299 GROUP BY 1;
	RETURN NULL;
END
$$;

CREATE FUNCTION hookrelay.activity_delivered() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	INSERT INTO hookrelay.activity_deltas (minute, delivered)
	SELECT date_trunc('minute', n.last_attempted_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', count(*)
	FROM new_rows n JOIN old_rows o ON o.id = n.id
	WHERE n.status = 'done' AND o.status <> 'done' AND n.last_attempted_at IS NOT NULL
	GROUP BY 1;
	RETURN NULL;
END
$$;

CREATE TRIGGER activity_delivered AFTER UPDATE ON hookrelay.deliveries
	REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
	FOR EACH STATEMENT EXECUTE FUNCTION hookrelay.activity_delivered();

-- A delivery inserted done with its attempt (a copy between stores) is
-- counted as it arrives.
CREATE FUNCTION hookrelay.activity_delivered_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	INSERT INTO hookrelay.activity_deltas (minute, delivered)
	SELECT date_trunc('minute', last_attempted_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', count(*)
	FROM new_rows WHERE status = 'done' AND last_attempted_at IS NOT NULL
	GROUP BY 1;
	RETURN NULL;
END
$$;

CREATE TRIGGER activity_delivered_inserted AFTER INSERT ON hookrelay.deliveries
	REFERENCING NEW TABLE AS new_rows
	FOR EACH STATEMENT EXECUTE FUNCTION hookrelay.activity_delivered_inserted();

INSERT INTO hookrelay.schema_migrations (version) VALUES (28) ON CONFLICT (version) DO NOTHING;
