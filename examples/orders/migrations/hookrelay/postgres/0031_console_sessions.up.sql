-- hookrelay's migration 0031_console_sessions.sql, its tables named as hookrelay.events is.
CREATE SCHEMA IF NOT EXISTS "hookrelay";
CREATE TABLE IF NOT EXISTS hookrelay.schema_migrations (
	version    integer PRIMARY KEY,
	applied_at timestamptz NOT NULL DEFAULT now()
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
CREATE TABLE hookrelay.console_sessions (
	key_digest bytea       NOT NULL PRIMARY KEY,
	token      text        NOT NULL,
	role       text        NOT NULL,
	binding    bytea       NOT NULL,
	flash      text        NOT NULL DEFAULT '',
	created_at timestamptz NOT NULL,
	seen_at    timestamptz NOT NULL,
	expires_at timestamptz NOT NULL
);
CREATE INDEX console_sessions_token ON hookrelay.console_sessions (token, created_at);
CREATE INDEX console_sessions_expires ON hookrelay.console_sessions (expires_at);

INSERT INTO hookrelay.schema_migrations (version) VALUES (31) ON CONFLICT (version) DO NOTHING;
