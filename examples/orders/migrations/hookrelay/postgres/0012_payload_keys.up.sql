-- hookrelay's migration 0012_payload_keys.sql, its tables named as hookrelay.events is.
CREATE SCHEMA IF NOT EXISTS "hookrelay";
CREATE TABLE IF NOT EXISTS hookrelay.schema_migrations (
	version    integer PRIMARY KEY,
	applied_at timestamptz NOT NULL DEFAULT now()
);

-- 0012: the id of the key that sealed a row's payload (an event's body and
-- headers, an attempt's response snippet); NULL when it is stored plain.
ALTER TABLE hookrelay.events ADD COLUMN key_id TEXT;
ALTER TABLE hookrelay.attempts ADD COLUMN key_id TEXT;

INSERT INTO hookrelay.schema_migrations (version) VALUES (12) ON CONFLICT (version) DO NOTHING;
