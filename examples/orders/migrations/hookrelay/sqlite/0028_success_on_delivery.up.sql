-- hookrelay's migration 0028_success_on_delivery.sql, its tables named as hookrelay_events is.
CREATE TABLE IF NOT EXISTS hookrelay_schema_migrations (
	version    INTEGER NOT NULL PRIMARY KEY,
	applied_at INTEGER NOT NULL
);

-- 0028: a successful attempt is kept on its delivery, not in attempts.
--
-- Most deliveries succeed at their first attempt. Writing that attempt as
-- a row of its own cost every delivery an insert and two index entries on
-- the one writer. The outcome's UPDATE of the delivery now records when
-- its last attempt started and how long it took (the response code was
-- already last_status_code), and attempts holds only the attempts that did
-- not end the delivery done. Readers list a done delivery's attempts as
-- its rows plus the one its columns describe. Replay, which starts a new
-- round on the same row, first writes that attempt into attempts, so that
-- no round's success is lost. Rows completed before this migration keep
-- their attempt rows and leave last_attempted_at NULL.
ALTER TABLE hookrelay_deliveries ADD COLUMN last_attempted_at INTEGER;
ALTER TABLE hookrelay_deliveries ADD COLUMN last_duration_ms INTEGER NOT NULL DEFAULT 0;

-- The activity counters (0023) counted each attempt as its row was
-- inserted. The attempt that ends a delivery done has no row now: it is
-- counted, by the minute it started, when the outcome sets its delivery
-- done, and rows of attempts count only the attempts that did not
-- succeed — a 2xx row is a replay's copy of an attempt that was counted
-- when it ended its delivery.
DROP TRIGGER activity_attempted;

CREATE TRIGGER activity_attempted AFTER INSERT ON hookrelay_attempts
WHEN NEW.status_code NOT BETWEEN 200 AND 299
BEGIN
	INSERT INTO hookrelay_activity_minutes (minute, failed) VALUES (NEW.attempted_at - NEW.attempted_at % 60000000, 1)
	ON CONFLICT (minute) DO UPDATE SET failed = failed + 1;
END;

CREATE TRIGGER activity_delivered AFTER UPDATE OF status ON hookrelay_deliveries
WHEN NEW.status = 'done' AND OLD.status <> 'done' AND NEW.last_attempted_at IS NOT NULL
BEGIN
	INSERT INTO hookrelay_activity_minutes (minute, delivered)
	VALUES (NEW.last_attempted_at - NEW.last_attempted_at % 60000000, 1)
	ON CONFLICT (minute) DO UPDATE SET delivered = delivered + 1;
END;

-- A delivery inserted done with its attempt (a copy between stores) is
-- counted as it arrives.
CREATE TRIGGER activity_delivered_inserted AFTER INSERT ON hookrelay_deliveries
WHEN NEW.status = 'done' AND NEW.last_attempted_at IS NOT NULL
BEGIN
	INSERT INTO hookrelay_activity_minutes (minute, delivered)
	VALUES (NEW.last_attempted_at - NEW.last_attempted_at % 60000000, 1)
	ON CONFLICT (minute) DO UPDATE SET delivered = delivered + 1;
END;

INSERT OR IGNORE INTO hookrelay_schema_migrations (version, applied_at) VALUES (28, CAST((julianday('now') - 2440587.5) * 86400000000 AS INTEGER));
