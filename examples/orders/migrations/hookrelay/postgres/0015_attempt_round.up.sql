-- hookrelay's migration 0015_attempt_round.sql, its tables named as hookrelay.events is.
CREATE SCHEMA IF NOT EXISTS "hookrelay";
CREATE TABLE IF NOT EXISTS hookrelay.schema_migrations (
	version    integer PRIMARY KEY,
	applied_at timestamptz NOT NULL DEFAULT now()
);

-- 0015: the statement that records outcomes sets each attempt's replay
-- round itself, from the delivery row it has just updated. The per-row
-- trigger of 0008 looked the delivery up again for every attempt, the
-- largest share of an outcome's cost; that statement is the only writer of
-- attempts.
DROP TRIGGER attempts_round ON hookrelay.attempts;
DROP FUNCTION hookrelay.attempts_round();

INSERT INTO hookrelay.schema_migrations (version) VALUES (15) ON CONFLICT (version) DO NOTHING;
