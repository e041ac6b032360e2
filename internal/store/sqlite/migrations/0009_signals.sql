-- 0009: hourly counts of the events each secret slot verified, added to by
-- receivers that count in memory and flush now and then. hour is the unix
-- microsecond of the hour's start; last_at the latest verification in it.
-- Hours older than store.SlotUsageKeep are deleted by the flush itself.
CREATE TABLE hookrelay.secret_slot_hours (
	source   TEXT    NOT NULL,
	slot     INTEGER NOT NULL,
	hour     INTEGER NOT NULL,
	verified INTEGER NOT NULL,
	last_at  INTEGER NOT NULL,
	PRIMARY KEY (source, slot, hour)
) WITHOUT ROWID;
