#!/usr/bin/env bash
# bench-live-queue.sh measures, on PostgreSQL, what the common life of a
# delivery costs the server in several layouts: today's, one deliveries
# table that is queue and history at once (inserted leased at ingest,
# updated once done); a narrow live queue beside an insert-only history
# (inserted into the queue at ingest; deleted from it and inserted into the
# history once done); rows written at outcome (no row until the delivery
# is finished, its event's lease kept in a row per event meanwhile); and
# the floor of any layout with a row per delivery, each inserted once,
# done. All run the same batches of 32 — the size of an outcome batch at a
# moderate rate — in one backend, whose CPU time is read from /proc, and
# then VACUUM what they left dead, which the server pays for too. The
# count triggers are left out, as they would cost about the same either
# way; a last run puts today's on the one table, to show what they add.
#
# Usage: scripts/bench-live-queue.sh [postgres-url] [deliveries] [runs]
set -euo pipefail
. "$(dirname "$0")/bench-backend.sh"

deliveries=${2:-64000}
runs=${3:-3}
scratch_database "${1:-postgres://postgres@127.0.0.1:5432/postgres}" hr_live_queue_bench

# Today's layout: the columns and indexes of deliveries.
psql -q "$dburl" -v deliveries_table=one_table -f "$(dirname "$0")/bench-deliveries.sql"
psql -q "$dburl" <<'SQL'
-- The narrow live queue: what a claim and an outcome need, and nothing
-- else; its rows leave it once done.
CREATE TABLE live_queue (
	id bigint PRIMARY KEY, event_id text COLLATE "C" NOT NULL, destination text COLLATE "C" NOT NULL,
	status text NOT NULL, attempts integer NOT NULL DEFAULT 0, ordering_key text COLLATE "C" NOT NULL DEFAULT '',
	next_attempt_at timestamptz NOT NULL, lease_until timestamptz, lease_token text, order_at timestamptz NOT NULL,
	UNIQUE (event_id, destination)
);
CREATE INDEX ON live_queue (destination, next_attempt_at, id) WHERE status IN ('pending', 'failed');
CREATE INDEX ON live_queue (destination, lease_until) WHERE status = 'processing';
CREATE INDEX ON live_queue (destination, ordering_key, order_at, id) WHERE ordering_key <> '';
CREATE SEQUENCE live_ids;
-- The history: every column, written once a delivery is finished.
CREATE TABLE history (LIKE one_table INCLUDING DEFAULTS);
ALTER TABLE history ALTER id DROP IDENTITY IF EXISTS;
ALTER TABLE history ADD PRIMARY KEY (id), ADD UNIQUE (event_id, destination);
CREATE INDEX ON history (event_id) WHERE status = 'dead';
CREATE INDEX ON history (destination, status, failure_kind, event_id) WHERE status IN ('failed', 'dead');
CREATE INDEX ON history (destination, status, failure_kind, updated_at) WHERE status IN ('failed', 'dead');
CREATE INDEX ON history (event_id, destination) WHERE status = 'skipped';
CREATE INDEX ON history (event_id, destination) WHERE status = 'purged';

-- Today's count triggers, as migrations 0023-0029 define them, with the
-- tables they write; created on one_table for the third run only.
CREATE TABLE delivery_count_deltas (destination text NOT NULL, status text NOT NULL, n bigint NOT NULL);
CREATE TABLE failure_count_deltas (destination text NOT NULL, status text NOT NULL, kind text NOT NULL, n bigint NOT NULL);
CREATE TABLE activity_deltas (minute timestamptz NOT NULL, received bigint NOT NULL DEFAULT 0,
	delivered bigint NOT NULL DEFAULT 0, failed bigint NOT NULL DEFAULT 0);
CREATE FUNCTION counts_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	INSERT INTO delivery_count_deltas (destination, status, n)
	SELECT destination, status, count(*) FROM new_rows GROUP BY destination, status;
	INSERT INTO failure_count_deltas (destination, status, kind, n)
	SELECT destination, status, failure_kind, count(*) FROM new_rows WHERE status IN ('failed', 'dead')
	GROUP BY destination, status, failure_kind;
	RETURN NULL;
END $$;
CREATE FUNCTION delivered_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	INSERT INTO activity_deltas (minute, delivered)
	SELECT date_trunc('minute', last_attempted_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', count(*)
	FROM new_rows WHERE status = 'done' AND last_attempted_at IS NOT NULL GROUP BY 1;
	RETURN NULL;
END $$;
CREATE FUNCTION counts_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	WITH x AS (
		SELECT destination, status, failure_kind, -1 AS n FROM old_rows
		UNION ALL
		SELECT destination, status, failure_kind, 1 FROM new_rows
	), counts AS (
		INSERT INTO delivery_count_deltas (destination, status, n)
		SELECT destination, status, sum(n) FROM x GROUP BY destination, status HAVING sum(n) <> 0
	)
	INSERT INTO failure_count_deltas (destination, status, kind, n)
	SELECT destination, status, failure_kind, sum(n) FROM x WHERE status IN ('failed', 'dead')
	GROUP BY destination, status, failure_kind HAVING sum(n) <> 0;
	RETURN NULL;
END $$;
CREATE FUNCTION delivered() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	INSERT INTO activity_deltas (minute, delivered)
	SELECT date_trunc('minute', n.last_attempted_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', count(*)
	FROM new_rows n JOIN old_rows o ON o.id = n.id
	WHERE n.status = 'done' AND o.status <> 'done' AND n.last_attempted_at IS NOT NULL GROUP BY 1;
	RETURN NULL;
END $$;
CREATE PROCEDURE count_one_table(keep boolean) LANGUAGE plpgsql AS $$
BEGIN
	IF keep THEN
		CREATE TRIGGER counts_insert AFTER INSERT ON one_table REFERENCING NEW TABLE AS new_rows
			FOR EACH STATEMENT EXECUTE FUNCTION counts_insert();
		CREATE TRIGGER delivered_inserted AFTER INSERT ON one_table REFERENCING NEW TABLE AS new_rows
			FOR EACH STATEMENT EXECUTE FUNCTION delivered_inserted();
		CREATE TRIGGER counts_update AFTER UPDATE ON one_table REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
			FOR EACH STATEMENT EXECUTE FUNCTION counts_update();
		CREATE TRIGGER delivered AFTER UPDATE ON one_table REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
			FOR EACH STATEMENT EXECUTE FUNCTION delivered();
	ELSE
		DROP TRIGGER counts_insert ON one_table;
		DROP TRIGGER delivered_inserted ON one_table;
		DROP TRIGGER counts_update ON one_table;
		DROP TRIGGER delivered ON one_table;
	END IF;
END $$;

-- One life of n deliveries, 4 per event, in batches of 32: inserted
-- leased, then finished done.
CREATE PROCEDURE life_one_table(n integer) LANGUAGE plpgsql AS $$
DECLARE ids bigint[]; b integer;
BEGIN
	FOR b IN 0 .. n / 32 - 1 LOOP
		WITH ins AS (
			INSERT INTO one_table (event_id, destination, status, attempts, next_attempt_at, lease_until, lease_token, created_at, updated_at, order_at)
			SELECT 'evt_' || (b * 8 + i / 4), 'dest_' || (i % 4), 'processing', 1, now(), now() + interval '1 minute', md5(i::text), now(), now(), now()
			FROM generate_series(0, 31) AS i
			RETURNING id
		) SELECT array_agg(id) INTO ids FROM ins;
		COMMIT;
		UPDATE one_table SET status = 'done', last_status_code = 200, finished_at = now(), last_attempted_at = now(),
			last_duration_ms = 3, lease_until = NULL, lease_token = NULL, updated_at = now()
		WHERE id = ANY (ids) AND status = 'processing';
		COMMIT;
	END LOOP;
END $$;

-- Rows written at outcome: a delivery leased at ingest has no row of
-- its own until it is finished. Its event's lease (one row per event:
-- the destinations it fans out to, the token and lease_until) is what a
-- sweeper would read to give the unfinished ones rows once the lease ran
-- out; the outcome inserts each delivery whole, done, and the event's
-- lease goes once its deliveries are in.
CREATE TABLE event_leases (
	event_id text COLLATE "C" PRIMARY KEY, destinations text[] NOT NULL, lease_token text NOT NULL,
	lease_until timestamptz NOT NULL
);
CREATE TABLE at_outcome (LIKE one_table INCLUDING ALL);

CREATE PROCEDURE life_at_outcome(n integer) LANGUAGE plpgsql AS $$
DECLARE b integer;
BEGIN
	FOR b IN 0 .. n / 32 - 1 LOOP
		INSERT INTO event_leases (event_id, destinations, lease_token, lease_until)
		SELECT 'evt_' || (b * 8 + e), ARRAY['dest_0', 'dest_1', 'dest_2', 'dest_3'], md5(e::text), now() + interval '1 minute'
		FROM generate_series(0, 7) AS e;
		COMMIT;
		WITH ins AS (
			INSERT INTO at_outcome (event_id, destination, status, attempts, next_attempt_at, last_status_code, created_at, updated_at,
				finished_at, order_at, last_attempted_at, last_duration_ms)
			SELECT 'evt_' || (b * 8 + i / 4), 'dest_' || (i % 4), 'done', 1, now(), 200, now(), now(), now(), now(), now(), 3
			FROM generate_series(0, 31) AS i
			ON CONFLICT (event_id, destination) DO NOTHING
			RETURNING event_id
		)
		DELETE FROM event_leases WHERE event_id IN (SELECT event_id FROM ins);
		COMMIT;
	END LOOP;
END $$;

-- The floor of any layout that keeps a row per delivery: each inserted
-- once, already done, with nothing else written.
CREATE PROCEDURE life_floor(n integer) LANGUAGE plpgsql AS $$
DECLARE b integer;
BEGIN
	FOR b IN 0 .. n / 32 - 1 LOOP
		INSERT INTO at_outcome (event_id, destination, status, attempts, next_attempt_at, last_status_code, created_at, updated_at,
			finished_at, order_at, last_attempted_at, last_duration_ms)
		SELECT 'evt_' || (b * 8 + i / 4), 'dest_' || (i % 4), 'done', 1, now(), 200, now(), now(), now(), now(), now(), 3
		FROM generate_series(0, 31) AS i;
		COMMIT;
	END LOOP;
END $$;

CREATE PROCEDURE life_live_queue(n integer) LANGUAGE plpgsql AS $$
DECLARE ids bigint[]; b integer;
BEGIN
	FOR b IN 0 .. n / 32 - 1 LOOP
		WITH ins AS (
			INSERT INTO live_queue (id, event_id, destination, status, attempts, next_attempt_at, lease_until, lease_token, order_at)
			SELECT nextval('live_ids'), 'evt_' || (b * 8 + i / 4), 'dest_' || (i % 4), 'processing', 1, now(), now() + interval '1 minute', md5(i::text), now()
			FROM generate_series(0, 31) AS i
			RETURNING id
		) SELECT array_agg(id) INTO ids FROM ins;
		COMMIT;
		WITH gone AS (
			DELETE FROM live_queue WHERE id = ANY (ids) AND status = 'processing' RETURNING *
		)
		INSERT INTO history (id, event_id, destination, status, attempts, next_attempt_at, last_status_code, created_at, updated_at,
			finished_at, order_at, last_attempted_at, last_duration_ms)
		SELECT id, event_id, destination, 'done', attempts, next_attempt_at, 200, now(), now(), now(), order_at, now(), 3 FROM gone;
		COMMIT;
	END LOOP;
END $$;
SQL

# run measures one life of the deliveries in layout, the procedure
# life_<layout>, on a backend of its own, then empties tables; label names
# the row.
run() {
	local label=$1 layout=$2 tables=$3
	per_delivery "$dburl" "$label" "$deliveries" "CALL life_$layout($deliveries); VACUUM $tables;"
	psql -q "$dburl" -c "TRUNCATE $tables, delivery_count_deltas, failure_count_deltas, activity_deltas"
}

echo "the life of $deliveries deliveries (leased at ingest, finished done) in batches of 32, then VACUUM; $runs runs each, alternating"
for _ in $(seq "$runs"); do
	run "one table" one_table one_table
	run "live queue and history" live_queue "live_queue, history"
	run "rows written at outcome" at_outcome "at_outcome, event_leases"
	run "one insert each (floor)" floor at_outcome
	psql -q "$dburl" -c "CALL count_one_table(true)"
	run "one table, count triggers" one_table one_table
	psql -q "$dburl" -c "CALL count_one_table(false)"
done
