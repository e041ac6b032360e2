-- hookrelay's migration 0008_operator.sql, its tables named as hookrelay_events is.
CREATE TABLE IF NOT EXISTS hookrelay_schema_migrations (
	version    INTEGER NOT NULL PRIMARY KEY,
	applied_at INTEGER NOT NULL
);

-- 0008: what an operator does during an incident — pause a destination,
-- skip a stuck delivery, tell replay rounds apart.

-- A destination listed here is paused: claims pass it by, its deliveries
-- wait. Pauses and resumes are also written to the audit log (replays).
CREATE TABLE hookrelay_paused_destinations (
	destination TEXT    NOT NULL PRIMARY KEY,
	paused_at   INTEGER NOT NULL,
	actor       TEXT    NOT NULL
) WITHOUT ROWID;

-- The replay round an attempt was made in: the delivery's replay_count at
-- the time. A trigger records it, so that every writer of attempts gets it
-- right without knowing of it; a replay never re-arms a delivery that is
-- processing, so the count cannot change between the claim and the
-- attempt's row.
ALTER TABLE hookrelay_attempts ADD COLUMN round INTEGER NOT NULL DEFAULT 0;

CREATE TRIGGER attempts_round AFTER INSERT ON hookrelay_attempts
BEGIN
	UPDATE hookrelay_attempts SET round = (SELECT replay_count FROM hookrelay_deliveries WHERE id = NEW.delivery_id)
	WHERE id = NEW.id;
END;

INSERT OR IGNORE INTO hookrelay_schema_migrations (version, applied_at) VALUES (8, CAST((julianday('now') - 2440587.5) * 86400000000 AS INTEGER));
