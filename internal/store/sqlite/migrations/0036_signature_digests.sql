-- 0036: a signature digest (0010) is held by one provider id of its
-- source, in a narrow table unique per (source, digest) that ingest
-- writes in the event's transaction: of the items that carry one digest
-- under different provider ids, exactly one stores its event, and the
-- rule no longer depends on a read made before the commit.
--
-- A row holds its digest for store.ReplayWindow (72 hours) after
-- received_at; after that, another provider id takes it over in place.
-- It is deleted with the event that holds it, so retention keeps the
-- table no larger than the events that carry a digest.
CREATE TABLE hookrelay.signature_digests (
	source            TEXT    NOT NULL,
	digest            BLOB    NOT NULL,
	provider_event_id TEXT    NOT NULL,
	received_at       INTEGER NOT NULL,
	PRIMARY KEY (source, digest)
) WITHOUT ROWID;

-- The digests still within the window (received_at is in unix
-- microseconds), each held by the first event that carried it; older
-- ones decide nothing and are left out. This reads the partial index of
-- 0010, which the table replaces.
INSERT INTO hookrelay.signature_digests (source, digest, provider_event_id, received_at)
SELECT source, signature_digest, provider_event_id, min(received_at)
FROM hookrelay.events
WHERE signature_digest IS NOT NULL
	AND received_at >= CAST((julianday('now') - 2440587.5) * 86400000000 AS INTEGER) - 259200000000
GROUP BY source, signature_digest;

DROP INDEX events_signature_digest;

-- The digest a deleted event held goes with it; one another provider id
-- has taken over since stays.
CREATE TRIGGER events_delete_signature_digests AFTER DELETE ON hookrelay.events
WHEN OLD.signature_digest IS NOT NULL
BEGIN
	DELETE FROM hookrelay.signature_digests
	WHERE source = OLD.source AND digest = OLD.signature_digest AND provider_event_id = OLD.provider_event_id;
END;
