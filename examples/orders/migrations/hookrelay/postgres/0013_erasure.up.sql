-- hookrelay's migration 0013_erasure.sql, its tables named as hookrelay.events is.
CREATE SCHEMA IF NOT EXISTS "hookrelay";
CREATE TABLE IF NOT EXISTS hookrelay.schema_migrations (
	version    integer PRIMARY KEY,
	applied_at timestamptz NOT NULL DEFAULT now()
);

-- 0013: erasure on request. A purged event keeps its row — ids, source,
-- type, times — with its body emptied and its headers gone; these columns
-- are its tombstone: when, by whom (a token's name) and why. NULL purged_at
-- is an event that was not purged. Its deliveries that were live end with
-- status 'purged' (counted by the triggers of 0004 like any status).
-- Nullable columns without a default are added without rewriting the table.
ALTER TABLE hookrelay.events ADD COLUMN purged_at timestamptz;
ALTER TABLE hookrelay.events ADD COLUMN purged_by text;
ALTER TABLE hookrelay.events ADD COLUMN purge_reason text;

-- A purge's audit row counts the events it purged here, the events it
-- selected in matched.
ALTER TABLE hookrelay.replays ADD COLUMN purged bigint NOT NULL DEFAULT 0;

INSERT INTO hookrelay.schema_migrations (version) VALUES (13) ON CONFLICT (version) DO NOTHING;
