-- 0033: the relay processes of a fleet, as each last reported itself
-- (every few seconds and after each reload): which version and which
-- configuration each runs, so that nodes that disagree are shown. A
-- SQLite file has one process, and so one node.
CREATE TABLE hookrelay.nodes (
	id                 TEXT    NOT NULL PRIMARY KEY,
	version            TEXT    NOT NULL,
	config_fingerprint TEXT    NOT NULL,
	started_at         INTEGER NOT NULL,
	seen_at            INTEGER NOT NULL
) WITHOUT ROWID;
