-- 0028: a successful attempt is kept on its delivery, not in attempts.
--
-- Most deliveries succeed at their first attempt. Writing that attempt as
-- a row of its own cost every delivery an insert and three index entries,
-- a third of the database's work per delivery. The outcome's UPDATE of the
-- delivery now records when its last attempt started and how long it
-- took (the response code was already last_status_code), and attempts
-- holds only the attempts that did not end the delivery done. Readers
-- list a done delivery's attempts as its rows plus the one its columns
-- describe. Replay, which starts a new round on the same row, first
-- writes that attempt into attempts, so that no round's success is lost.
-- Rows completed before this migration keep their attempt rows and leave
-- last_attempted_at NULL.
ALTER TABLE deliveries
	ADD COLUMN last_attempted_at timestamptz,
	ADD COLUMN last_duration_ms  bigint NOT NULL DEFAULT 0;
