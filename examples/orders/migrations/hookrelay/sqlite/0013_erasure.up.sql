-- hookrelay's migration 0013_erasure.sql, its tables named as hookrelay_events is.
CREATE TABLE IF NOT EXISTS hookrelay_schema_migrations (
	version    INTEGER NOT NULL PRIMARY KEY,
	applied_at INTEGER NOT NULL
);

-- 0013: erasure on request. A purged event keeps its row — ids, source,
-- type, times — with its body emptied and its headers gone; these columns
-- are its tombstone: when, by whom (a token's name) and why. NULL purged_at
-- is an event that was not purged. Its deliveries that were live end with
-- status 'purged' (counted by the triggers of 0004 like any status).
ALTER TABLE hookrelay_events ADD COLUMN purged_at INTEGER;
ALTER TABLE hookrelay_events ADD COLUMN purged_by TEXT;
ALTER TABLE hookrelay_events ADD COLUMN purge_reason TEXT;

-- A purge's audit row counts the events it purged here, the events it
-- selected in matched.
ALTER TABLE hookrelay_replays ADD COLUMN purged INTEGER NOT NULL DEFAULT 0;

INSERT OR IGNORE INTO hookrelay_schema_migrations (version, applied_at) VALUES (13, CAST((julianday('now') - 2440587.5) * 86400000000 AS INTEGER));
