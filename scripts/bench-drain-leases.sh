#!/usr/bin/env bash
# bench-drain-leases.sh measures, on PostgreSQL, what draining a stored
# backlog costs the server per delivery in two ways of leasing: today's,
# where a claim locks each delivery's row and writes it again as processing
# (a new row version and its index entries), against leases kept apart, one
# row per claimed batch, where the deliveries' rows are written once, by
# their outcome. Each run stores the backlog first (not measured), then, in
# one backend whose CPU time is read from /proc, claims it in batches of
# 128 and finishes every delivery done in batches of 64, as the relay's
# claims and outcome committer do, and VACUUMs what it left dead. Both
# tables carry today's count triggers. The batch leases are a measurement
# only: what the figures say about them is in docs/performance.md.
#
# Usage: scripts/bench-drain-leases.sh [postgres-url] [deliveries] [runs]
set -euo pipefail
. "$(dirname "$0")/bench-backend.sh"

deliveries=${2:-64000}
runs=${3:-3}
scratch_database "${1:-postgres://postgres@127.0.0.1:5432/postgres}" hr_drain_leases_bench

psql -q "$dburl" -v deliveries_table=deliveries -f "$(dirname "$0")/bench-deliveries.sql"
psql -q "$dburl" <<'SQL'
-- The count triggers of migrations 0004-0029, simplified to the deltas
-- they write.
CREATE TABLE delivery_count_deltas (destination text NOT NULL, status text NOT NULL, n bigint NOT NULL);
CREATE TABLE activity_deltas (minute timestamptz NOT NULL, delivered bigint NOT NULL DEFAULT 0);
CREATE FUNCTION counts_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	INSERT INTO delivery_count_deltas (destination, status, n)
	SELECT destination, status, count(*) FROM new_rows GROUP BY destination, status;
	RETURN NULL;
END $$;
CREATE FUNCTION counts_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	INSERT INTO delivery_count_deltas (destination, status, n)
	SELECT destination, status, sum(n) FROM (
		SELECT destination, status, -1 AS n FROM old_rows UNION ALL SELECT destination, status, 1 FROM new_rows
	) x GROUP BY destination, status HAVING sum(n) <> 0;
	INSERT INTO activity_deltas (minute, delivered)
	SELECT date_trunc('minute', n.last_attempted_at), count(*)
	FROM new_rows n JOIN old_rows o ON o.id = n.id
	WHERE n.status = 'done' AND o.status <> 'done' GROUP BY 1;
	RETURN NULL;
END $$;
CREATE TRIGGER counts_insert AFTER INSERT ON deliveries REFERENCING NEW TABLE AS new_rows
	FOR EACH STATEMENT EXECUTE FUNCTION counts_insert();
CREATE TRIGGER counts_update AFTER UPDATE ON deliveries REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
	FOR EACH STATEMENT EXECUTE FUNCTION counts_update();

-- Leases kept apart: one row per claimed batch, and per destination the
-- due position the claims have reached, so that a claim reads past what
-- the batches before it hold without writing their rows.
CREATE TABLE batch_leases (
	token text PRIMARY KEY, destination text NOT NULL, delivery_ids bigint[] NOT NULL, lease_until timestamptz NOT NULL
);
CREATE TABLE claim_cursors (
	destination text PRIMARY KEY, due_at timestamptz NOT NULL, id bigint NOT NULL
) WITH (fillfactor = 50);

-- store keeps n pending deliveries, 4 per event, due now.
CREATE PROCEDURE store(n integer) LANGUAGE sql AS $$
	INSERT INTO deliveries (event_id, destination, status, next_attempt_at, created_at, updated_at, order_at)
	SELECT 'evt_' || (i / 4), 'dest_' || (i % 4), 'pending', now(), now(), now(), now()
	FROM generate_series(0, n - 1) AS i;
	INSERT INTO claim_cursors SELECT 'dest_' || d, '-infinity', 0 FROM generate_series(0, 3) AS d;
$$;

-- outcomes finishes the claimed ids done, 64 a statement, each statement
-- its own transaction, as the outcome committer writes them.
CREATE PROCEDURE outcomes(ids bigint[], was text) LANGUAGE plpgsql AS $$
DECLARE o integer := 1;
BEGIN
	WHILE o <= cardinality(ids) LOOP
		UPDATE deliveries SET status = 'done', last_status_code = 200, finished_at = now(), last_attempted_at = now(),
			last_duration_ms = 3, lease_until = NULL, lease_token = NULL, updated_at = now()
		WHERE id = ANY (ids[o:o + 63]) AND status = was;
		COMMIT;
		o := o + 64;
	END LOOP;
END $$;

-- drain_row_leases drains what store kept as the relay does today: a
-- claim locks its candidates (FOR UPDATE SKIP LOCKED) and writes each
-- row again as processing, with its lease; the outcome writes it done.
CREATE PROCEDURE drain_row_leases() LANGUAGE plpgsql AS $$
DECLARE ids bigint[]; d integer;
BEGIN
	LOOP
		FOR d IN 0 .. 3 LOOP
			WITH due AS (
				SELECT c.id FROM deliveries c
				WHERE c.destination = 'dest_' || d AND c.status IN ('pending', 'failed') AND c.next_attempt_at <= now()
				ORDER BY c.next_attempt_at, c.id LIMIT 128
				FOR UPDATE OF c SKIP LOCKED
			), leased AS (
				UPDATE deliveries c SET status = 'processing', lease_token = md5(c.id::text),
					lease_until = now() + interval '1 minute', attempts = c.attempts + 1, updated_at = now()
				FROM due WHERE c.id = due.id
				RETURNING c.id
			) SELECT array_agg(id) INTO ids FROM leased;
			COMMIT;
			EXIT WHEN ids IS NULL;
			CALL outcomes(ids, 'processing');
		END LOOP;
		EXIT WHEN ids IS NULL;
	END LOOP;
END $$;

-- drain_batch_leases drains it with leases kept apart: a claim reads its
-- candidates past its destination's cursor, under the cursor row's lock,
-- writes one lease row for the batch and moves the cursor; the
-- deliveries stay pending until their outcome writes them done.
CREATE PROCEDURE drain_batch_leases() LANGUAGE plpgsql AS $$
DECLARE ids bigint[]; d integer;
BEGIN
	LOOP
		FOR d IN 0 .. 3 LOOP
			PERFORM 1 FROM claim_cursors WHERE destination = 'dest_' || d FOR UPDATE;
			SELECT array_agg(id ORDER BY next_attempt_at, id) INTO ids FROM (
				SELECT c.id, c.next_attempt_at FROM deliveries c, claim_cursors k
				WHERE k.destination = 'dest_' || d AND c.destination = k.destination
					AND c.status IN ('pending', 'failed') AND c.next_attempt_at <= now()
					AND (c.next_attempt_at, c.id) > (k.due_at, k.id)
				ORDER BY c.next_attempt_at, c.id LIMIT 128
			) s;
			EXIT WHEN ids IS NULL;
			INSERT INTO batch_leases VALUES (md5(ids[1]::text), 'dest_' || d, ids, now() + interval '1 minute');
			UPDATE claim_cursors SET due_at = (SELECT next_attempt_at FROM deliveries WHERE id = ids[cardinality(ids)]),
				id = ids[cardinality(ids)] WHERE destination = 'dest_' || d;
			COMMIT;
			CALL outcomes(ids, 'pending');
			DELETE FROM batch_leases WHERE token = md5(ids[1]::text);
			COMMIT;
		END LOOP;
		EXIT WHEN ids IS NULL;
	END LOOP;
END $$;
SQL

# run stores the backlog, then measures its drain, the procedure
# drain_<how>, and the VACUUM after it, on a backend of its own.
run() {
	local label=$1 how=$2 left
	psql -q "$dburl" -c "TRUNCATE deliveries, delivery_count_deltas, activity_deltas, batch_leases, claim_cursors" \
		-c "CALL store($deliveries)" -c "VACUUM ANALYZE deliveries" -c "CHECKPOINT"
	per_delivery "$dburl" "$label" "$deliveries" "CALL drain_$how(); VACUUM deliveries;"
	left=$(psql -qAt "$dburl" -c "SELECT count(*) FROM deliveries WHERE status <> 'done'")
	if [ "$left" != 0 ]; then
		echo "$label: $left deliveries left undone" >&2
		exit 1
	fi
}

echo "the drain of $deliveries stored deliveries, claims of 128, outcomes of 64, then VACUUM; $runs runs each, alternating"
for _ in $(seq "$runs"); do
	run "row leases (today)" row_leases
	run "batch leases" batch_leases
done
