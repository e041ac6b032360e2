-- 0007: the console's activity charts count the attempts of a window by
-- their time.
CREATE INDEX attempts_attempted_at ON hookrelay.attempts (attempted_at);
