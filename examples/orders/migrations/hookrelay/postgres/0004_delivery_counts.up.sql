-- hookrelay's migration 0004_delivery_counts.sql, its tables named as hookrelay.events is.
CREATE SCHEMA IF NOT EXISTS "hookrelay";
CREATE TABLE IF NOT EXISTS hookrelay.schema_migrations (
	version    integer PRIMARY KEY,
	applied_at timestamptz NOT NULL DEFAULT now()
);

-- 0004: delivery counts kept as deliveries change state.
--
-- Stats and the backlog gauges read these rows instead of counting every
-- delivery, so a scrape costs the same at ten million deliveries as at ten
-- thousand. Triggers keep them, so every statement that writes deliveries
-- (ingest, claim, outcome, release, replay, backfill, prune by cascade)
-- counts, whoever wrote it.
--
-- One counter row per (destination, status) updated by every claim and
-- every outcome would make all of a destination's workers queue on its row
-- lock. Instead each statement appends its net change per (destination,
-- status) — one row per pair it touched, computed from the statement's
-- transition tables — to an insert-only table that no two writers ever
-- lock in common. The count is the sum of a pair's rows; the store folds
-- the rows of each pair into one now and then (DELETE ... RETURNING and
-- one INSERT of the sums in one transaction, so a reader sees the rows
-- before or after, never both), which keeps the sum cheap to read.
CREATE TABLE hookrelay.delivery_count_deltas (
	destination text COLLATE "C" NOT NULL,
	status      text NOT NULL,
	n           bigint NOT NULL
);
-- No index: the table is read whole, and an index would only slow the
-- appends.

INSERT INTO hookrelay.delivery_count_deltas (destination, status, n)
SELECT destination, status, count(*) FROM hookrelay.deliveries GROUP BY destination, status;

CREATE FUNCTION hookrelay.delivery_counts_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	INSERT INTO hookrelay.delivery_count_deltas (destination, status, n)
	SELECT destination, status, count(*) FROM new_rows GROUP BY destination, status;
	RETURN NULL;
END
$$;

CREATE FUNCTION hookrelay.delivery_counts_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	INSERT INTO hookrelay.delivery_count_deltas (destination, status, n)
	SELECT destination, status, sum(n) FROM (
		SELECT destination, status, -1 AS n FROM old_rows
		UNION ALL
		SELECT destination, status, 1 FROM new_rows
	) AS x
	GROUP BY destination, status
	HAVING sum(n) <> 0;
	RETURN NULL;
END
$$;

CREATE FUNCTION hookrelay.delivery_counts_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	INSERT INTO hookrelay.delivery_count_deltas (destination, status, n)
	SELECT destination, status, -count(*) FROM old_rows GROUP BY destination, status;
	RETURN NULL;
END
$$;

CREATE TRIGGER delivery_counts_insert AFTER INSERT ON hookrelay.deliveries
	REFERENCING NEW TABLE AS new_rows
	FOR EACH STATEMENT EXECUTE FUNCTION hookrelay.delivery_counts_insert();
CREATE TRIGGER delivery_counts_update AFTER UPDATE ON hookrelay.deliveries
	REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
	FOR EACH STATEMENT EXECUTE FUNCTION hookrelay.delivery_counts_update();
CREATE TRIGGER delivery_counts_delete AFTER DELETE ON hookrelay.deliveries
	REFERENCING OLD TABLE AS old_rows
	FOR EACH STATEMENT EXECUTE FUNCTION hookrelay.delivery_counts_delete();

INSERT INTO hookrelay.schema_migrations (version) VALUES (4) ON CONFLICT (version) DO NOTHING;
