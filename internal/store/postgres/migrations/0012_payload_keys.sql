-- 0012: the id of the key that sealed a row's payload (an event's body and
-- headers, an attempt's response snippet); NULL when it is stored plain.
ALTER TABLE hookrelay.events ADD COLUMN key_id TEXT;
ALTER TABLE hookrelay.attempts ADD COLUMN key_id TEXT;
