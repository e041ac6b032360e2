-- 0021: the headers of an attempt: those hookrelay sent (the signature cut
-- short) and those the destination answered with, as JSON, bounded, or no
-- bytes when none were kept. Sealed like the response snippet, under the
-- row's key_id, when payload keys are configured, and emptied by a purge.
ALTER TABLE hookrelay.attempts ADD COLUMN headers BLOB NOT NULL DEFAULT x'';
