-- 0010: a digest of the body and its signature, kept for events whose
-- scheme signs the body alone, so that the same signed body posted again
-- under a new delivery id is found with one index lookup. NULL for every
-- other event, which the partial index leaves out.
ALTER TABLE hookrelay.events ADD COLUMN signature_digest BLOB;
CREATE INDEX events_signature_digest ON hookrelay.events (source, signature_digest, received_at)
	WHERE signature_digest IS NOT NULL;
