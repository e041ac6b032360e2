-- 0038: the statements that look an event up by its provider's id read
-- event_keys, (source, provider_event_id, event_id). On PostgreSQL it
-- becomes a table of its own when the event log is partitioned by time
-- (retention.partitions), since a partitioned events table cannot keep
-- the dedupe's unique index; a SQLite event log is never partitioned,
-- and here it is a view over events, whose unique index (source,
-- provider_event_id) answers it as before. A view stores nothing.
CREATE VIEW hookrelay.event_keys AS
SELECT source, provider_event_id, id AS event_id FROM hookrelay.events;
