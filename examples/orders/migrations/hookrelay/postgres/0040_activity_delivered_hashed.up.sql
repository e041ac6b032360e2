-- hookrelay's migration 0040_activity_delivered_hashed.sql, its tables named as hookrelay.events is.
CREATE SCHEMA IF NOT EXISTS "hookrelay";
CREATE TABLE IF NOT EXISTS hookrelay.schema_migrations (
	version    integer PRIMARY KEY,
	applied_at timestamptz NOT NULL DEFAULT now()
);

-- 0040: the statement trigger that counts the deliveries an UPDATE set
-- done (0028) joined its transition tables, new_rows and old_rows, on the
-- delivery's id. A transition table has no statistics: PL/pgSQL planned
-- the join once, for one row a side, as a nested loop, and kept that plan,
-- so an outcome statement of 256 deliveries compared 256 x 256 rows — a
-- quarter to a third of what the server spent on a drained delivery. The
-- old rows already done are now looked up in a hashed subplan: one pass
-- over each table, whatever the plan's estimate. Every row of an UPDATE
-- is in both tables, under one id, so the count is the same.
CREATE OR REPLACE FUNCTION hookrelay.activity_delivered() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	INSERT INTO hookrelay.activity_deltas (minute, delivered)
	SELECT date_trunc('minute', n.last_attempted_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', count(*)
	FROM new_rows n
	WHERE n.status = 'done' AND n.last_attempted_at IS NOT NULL
		AND n.id NOT IN (SELECT o.id FROM old_rows o WHERE o.status = 'done')
	GROUP BY 1;
	RETURN NULL;
END
$$;

INSERT INTO hookrelay.schema_migrations (version) VALUES (40) ON CONFLICT (version) DO NOTHING;
