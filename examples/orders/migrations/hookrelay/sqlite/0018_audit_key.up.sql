-- hookrelay's migration 0018_audit_key.sql, its tables named as hookrelay_events is.
CREATE TABLE IF NOT EXISTS hookrelay_schema_migrations (
	version    INTEGER NOT NULL PRIMARY KEY,
	applied_at INTEGER NOT NULL
);

-- 0018: the key of the audit log's keyed hashes. A purge that searched for
-- a value records HMAC-SHA-256 of it under this key, which no API returns,
-- in place of its SHA-256: an e-mail address or a customer id has too
-- little entropy for a plain hash to hide it from whoever reads the audit
-- log. The key is made the first time it is asked for (a random 32 bytes).
CREATE TABLE hookrelay_instance_keys (
	name       TEXT PRIMARY KEY,
	key        BLOB NOT NULL,
	created_at INTEGER NOT NULL -- unix microseconds
);

-- The plain hashes recorded before go: they cannot be made keyed without
-- the value, and they are what could be guessed.
UPDATE hookrelay_replays SET filter = json_remove(filter, '$.value_sha256')
WHERE kind = 'purge' AND filter LIKE '%"value_sha256"%';

INSERT OR IGNORE INTO hookrelay_schema_migrations (version, applied_at) VALUES (18, CAST((julianday('now') - 2440587.5) * 86400000000 AS INTEGER));
