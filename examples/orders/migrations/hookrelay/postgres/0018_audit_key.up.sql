-- hookrelay's migration 0018_audit_key.sql, its tables named as hookrelay.events is.
CREATE SCHEMA IF NOT EXISTS "hookrelay";
CREATE TABLE IF NOT EXISTS hookrelay.schema_migrations (
	version    integer PRIMARY KEY,
	applied_at timestamptz NOT NULL DEFAULT now()
);

-- 0018: the key of the audit log's keyed hashes. A purge that searched for
-- a value records HMAC-SHA-256 of it under this key, which no API returns,
-- in place of its SHA-256: an e-mail address or a customer id has too
-- little entropy for a plain hash to hide it from whoever reads the audit
-- log. The key is made the first time it is asked for (a random 32 bytes),
-- one per database, so that every node of a fleet hashes alike.
CREATE TABLE hookrelay.instance_keys (
	name       text PRIMARY KEY,
	key        bytea NOT NULL,
	created_at timestamptz NOT NULL DEFAULT now()
);

-- The plain hashes recorded before go: they cannot be made keyed without
-- the value, and they are what could be guessed.
UPDATE hookrelay.replays SET filter = (filter::jsonb - 'value_sha256')::text
WHERE kind = 'purge' AND filter LIKE '%"value_sha256"%';

INSERT INTO hookrelay.schema_migrations (version) VALUES (18) ON CONFLICT (version) DO NOTHING;
