-- 0031: the web console's sessions, so that a session opened through one
-- relay opens every relay's console on this database and a log out ends
-- it on all of them at once. A row holds no secret: key_digest is the
-- SHA-256 of the cookie's value, token the name of the token it was
-- opened with, binding a digest of the cookie's value and the token's
-- secret (worthless without the cookie). Each console request reads its
-- row by the primary key. A login deletes the expired rows
-- (console_sessions_expires) and its token's oldest beyond its bound
-- (console_sessions_token).
CREATE TABLE hookrelay.console_sessions (
	key_digest BLOB    NOT NULL PRIMARY KEY,
	token      TEXT    NOT NULL,
	role       TEXT    NOT NULL,
	binding    BLOB    NOT NULL,
	flash      TEXT    NOT NULL DEFAULT '',
	created_at INTEGER NOT NULL,
	seen_at    INTEGER NOT NULL,
	expires_at INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX console_sessions_token ON hookrelay.console_sessions (token, created_at);
CREATE INDEX console_sessions_expires ON hookrelay.console_sessions (expires_at);
