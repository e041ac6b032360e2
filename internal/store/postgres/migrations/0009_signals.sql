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
