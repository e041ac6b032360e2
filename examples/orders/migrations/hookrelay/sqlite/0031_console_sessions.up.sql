-- hookrelay's migration 0031_console_sessions.sql, its tables named as hookrelay_events is.
CREATE TABLE IF NOT EXISTS hookrelay_schema_migrations (
	version    INTEGER NOT NULL PRIMARY KEY,
	applied_at INTEGER NOT NULL
);

-- 0031: the web console's sessions, so that a session opened through one
-- relay opens every relay's console on this database and a log out ends
-- it on all of them at once. A row holds no secret: key_digest is the
-- SHA-256 of the cookie's value, token the name of the token it was
-- opened with, binding a digest of the cookie's value and the token's
-- secret (worthless without the cookie). Each console request reads its
-- row by the primary key. A login deletes the expired rows
-- (console_sessions_expires) and its token's oldest beyond its bound
-- (console_sessions_token).
CREATE TABLE hookrelay_console_sessions (
	key_digest BLOB    NOT NULL PRIMARY KEY,
	token      TEXT    NOT NULL,
	role       TEXT    NOT NULL,
	binding    BLOB    NOT NULL,
	flash      TEXT    NOT NULL DEFAULT '',
	created_at INTEGER NOT NULL,
	seen_at    INTEGER NOT NULL,
	expires_at INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX console_sessions_token ON hookrelay_console_sessions (token, created_at);
CREATE INDEX console_sessions_expires ON hookrelay_console_sessions (expires_at);

INSERT OR IGNORE INTO hookrelay_schema_migrations (version, applied_at) VALUES (31, CAST((julianday('now') - 2440587.5) * 86400000000 AS INTEGER));
