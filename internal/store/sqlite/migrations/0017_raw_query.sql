-- 0017: the query of the URL an event arrived on, for a scheme that signs
-- it (Twilio signs its full URL), so that a stored event can be verified
-- again. Empty for every other event; sealed like the body when payload
-- keys are configured, and emptied by a purge.
ALTER TABLE hookrelay.events ADD COLUMN raw_query TEXT NOT NULL DEFAULT '';
