-- hookrelay's migration 0015_attempt_round.sql, its tables named as hookrelay_events is.
CREATE TABLE IF NOT EXISTS hookrelay_schema_migrations (
	version    INTEGER NOT NULL PRIMARY KEY,
	applied_at INTEGER NOT NULL
);

-- 0015: the statement that inserts an attempt sets its replay round
-- itself. The trigger of 0008 rewrote every attempt row just after its
-- insert, a second write of each; insertAttempt is the only writer of
-- attempts.
DROP TRIGGER attempts_round;

INSERT OR IGNORE INTO hookrelay_schema_migrations (version, applied_at) VALUES (15, CAST((julianday('now') - 2440587.5) * 86400000000 AS INTEGER));
