-- 0036: a signature digest (0010) is held by one provider id of its
-- source, in a narrow table unique per (source, digest) that the ingest
-- statement writes with the event: of the requests that carry one digest
-- under different provider ids, on any number of nodes at once, exactly
-- one stores its event; each other waits for the holder's commit on the
-- primary key and is refused. Before, each node read the events before
-- its commit, and the same captured request posted to two nodes at once
-- was stored twice.
--
-- A row holds its digest for store.ReplayWindow (72 hours) after
-- received_at; after that, another provider id takes it over in place.
-- It is deleted with the event that holds it (a statement trigger, as for
-- the deliveries in 0016), so retention keeps the table no larger than
-- the events that carry a digest.
CREATE TABLE hookrelay.signature_digests (
	source            text        NOT NULL,
	digest            bytea       NOT NULL,
	provider_event_id text        NOT NULL,
	received_at       timestamptz NOT NULL,
	PRIMARY KEY (source, digest)
);

-- The digests still within the window, each held by the first event that
-- carried it; older ones decide nothing and are left out. This reads the
-- partial index of 0010, which the table replaces.
INSERT INTO hookrelay.signature_digests (source, digest, provider_event_id, received_at)
SELECT DISTINCT ON (source, signature_digest) source, signature_digest, provider_event_id, received_at
FROM hookrelay.events
WHERE signature_digest IS NOT NULL AND received_at >= now() - interval '72 hours'
ORDER BY source, signature_digest, received_at, id;

DROP INDEX hookrelay.events_signature_digest;

-- delete_signature_digests deletes the digests the deleted events held. A
-- digest another provider id has taken over since stays.
CREATE FUNCTION hookrelay.delete_signature_digests() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	DELETE FROM hookrelay.signature_digests h
	USING old_rows o
	WHERE o.signature_digest IS NOT NULL
		AND h.source = o.source AND h.digest = o.signature_digest AND h.provider_event_id = o.provider_event_id;
	RETURN NULL;
END
$$;

CREATE TRIGGER events_delete_signature_digests AFTER DELETE ON hookrelay.events
	REFERENCING OLD TABLE AS old_rows
	FOR EACH STATEMENT EXECUTE FUNCTION hookrelay.delete_signature_digests();
