-- 0019: the failures view (Failures) groups the failed and the dead
-- deliveries by destination and kind, the kind read from the last status
-- code and error. This index holds those rows only, each with all that the
-- grouping reads — the kind's columns, the last change and the event — so
-- that the grouping walks the index in its order and never the table: its
-- cost follows the number of failures, not the history of done ones. A
-- query uses it by naming its condition as it is written here.
CREATE INDEX deliveries_failures ON hookrelay.deliveries (status, destination, last_status_code, last_error, updated_at, event_id)
	WHERE status IN ('failed', 'dead');
