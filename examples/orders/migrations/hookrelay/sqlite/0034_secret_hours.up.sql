-- hookrelay's migration 0034_secret_hours.sql, its tables named as hookrelay_events is.
CREATE TABLE IF NOT EXISTS hookrelay_schema_migrations (
	version    INTEGER NOT NULL PRIMARY KEY,
	applied_at INTEGER NOT NULL
);

-- 0034: the use of signing secrets is counted by a fingerprint of each
-- secret, not by its position in the source's list (see the PostgreSQL
-- migration of the same number). The counts kept by position carry over
-- as 'slot:N'.
CREATE TABLE hookrelay_secret_hours (
	source   TEXT    NOT NULL,
	secret   TEXT    NOT NULL,
	hour     INTEGER NOT NULL,
	verified INTEGER NOT NULL,
	last_at  INTEGER NOT NULL,
	PRIMARY KEY (source, secret, hour)
) WITHOUT ROWID;
INSERT INTO hookrelay_secret_hours (source, secret, hour, verified, last_at)
SELECT source, 'slot:' || slot, hour, verified, last_at FROM hookrelay_secret_slot_hours;
DROP TABLE hookrelay_secret_slot_hours;

INSERT OR IGNORE INTO hookrelay_schema_migrations (version, applied_at) VALUES (34, CAST((julianday('now') - 2440587.5) * 86400000000 AS INTEGER));
