-- hookrelay's migration 0009_signals.sql, its tables named as hookrelay.events is.
CREATE SCHEMA IF NOT EXISTS "hookrelay";
CREATE TABLE IF NOT EXISTS hookrelay.schema_migrations (
	version    integer PRIMARY KEY,
	applied_at timestamptz NOT NULL DEFAULT now()
);

-- 0009: hourly counts of the events each secret slot verified, added to by
-- receivers that count in memory and flush now and then. Hours older than
-- store.SlotUsageKeep are deleted by the flush itself.
CREATE TABLE hookrelay.secret_slot_hours (
	source   text COLLATE "C" NOT NULL,
	slot     integer     NOT NULL,
	hour     timestamptz NOT NULL,
	verified bigint      NOT NULL,
	last_at  timestamptz NOT NULL,
	PRIMARY KEY (source, slot, hour)
);

INSERT INTO hookrelay.schema_migrations (version) VALUES (9) ON CONFLICT (version) DO NOTHING;
