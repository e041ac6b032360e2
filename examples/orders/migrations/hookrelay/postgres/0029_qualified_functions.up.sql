-- hookrelay's migration 0029_qualified_functions.sql, its tables named as hookrelay.events is.
CREATE SCHEMA IF NOT EXISTS "hookrelay";
CREATE TABLE IF NOT EXISTS hookrelay.schema_migrations (
	version    integer PRIMARY KEY,
	applied_at timestamptz NOT NULL DEFAULT now()
);

-- 0029: hookrelay's tables live in a schema of their own (hookrelay by
-- default), apart from the application's. Every statement names them
-- qualified, and so must the trigger functions, which run under the
-- search_path of whoever writes: an application's, without hookrelay's
-- schema in it. A database whose tables an earlier version created in
-- the schema of its search_path has them moved into hookrelay's before
-- this migration (see Migrate); these definitions, the same as the
-- latest ones before, replace the moved functions' unqualified bodies.
-- delete_referencing takes the schema of the table it fires on.

CREATE OR REPLACE FUNCTION hookrelay.delete_referencing() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE format('DELETE FROM %I.%I WHERE %I IN (SELECT id FROM old_rows)', TG_TABLE_SCHEMA, TG_ARGV[0], TG_ARGV[1]);
	RETURN NULL;
END
$$;

CREATE OR REPLACE FUNCTION hookrelay.delivery_counts_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	INSERT INTO hookrelay.delivery_count_deltas (destination, status, n)
	SELECT destination, status, count(*) FROM new_rows GROUP BY destination, status;
	INSERT INTO hookrelay.failure_count_deltas (destination, status, kind, n)
	SELECT destination, status, failure_kind, count(*) FROM new_rows
	WHERE status IN ('failed', 'dead')
	GROUP BY destination, status, failure_kind;
	RETURN NULL;
END
$$;

CREATE OR REPLACE FUNCTION hookrelay.delivery_counts_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	WITH x AS (
		SELECT destination, status, failure_kind, -1 AS n FROM old_rows
		UNION ALL
		SELECT destination, status, failure_kind, 1 FROM new_rows
	), counts AS (
		INSERT INTO hookrelay.delivery_count_deltas (destination, status, n)
		SELECT destination, status, sum(n) FROM x
		GROUP BY destination, status
		HAVING sum(n) <> 0
	)
	INSERT INTO hookrelay.failure_count_deltas (destination, status, kind, n)
	SELECT destination, status, failure_kind, sum(n) FROM x
	WHERE status IN ('failed', 'dead')
	GROUP BY destination, status, failure_kind
	HAVING sum(n) <> 0;
	RETURN NULL;
END
$$;

CREATE OR REPLACE FUNCTION hookrelay.delivery_counts_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	INSERT INTO hookrelay.delivery_count_deltas (destination, status, n)
	SELECT destination, status, -count(*) FROM old_rows GROUP BY destination, status;
	INSERT INTO hookrelay.failure_count_deltas (destination, status, kind, n)
	SELECT destination, status, failure_kind, -count(*) FROM old_rows
	WHERE status IN ('failed', 'dead')
	GROUP BY destination, status, failure_kind;
	RETURN NULL;
END
$$;

CREATE OR REPLACE FUNCTION hookrelay.activity_received() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	INSERT INTO hookrelay.activity_deltas (minute, received)
	SELECT date_trunc('minute', received_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', count(*)
	FROM new_rows GROUP BY 1;
	RETURN NULL;
END
$$;

CREATE OR REPLACE FUNCTION hookrelay.activity_attempted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	INSERT INTO hookrelay.activity_deltas (minute, failed)
	SELECT date_trunc('minute', attempted_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', count(*)
	FROM new_rows WHERE status_code NOT BETWEEN 200 AND 299 GROUP BY 1;
	RETURN NULL;
END
$$;

CREATE OR REPLACE FUNCTION hookrelay.activity_delivered() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	INSERT INTO hookrelay.activity_deltas (minute, delivered)
	SELECT date_trunc('minute', n.last_attempted_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', count(*)
	FROM new_rows n JOIN old_rows o ON o.id = n.id
	WHERE n.status = 'done' AND o.status <> 'done' AND n.last_attempted_at IS NOT NULL
	GROUP BY 1;
	RETURN NULL;
END
$$;

CREATE OR REPLACE FUNCTION hookrelay.activity_delivered_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	INSERT INTO hookrelay.activity_deltas (minute, delivered)
	SELECT date_trunc('minute', last_attempted_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', count(*)
	FROM new_rows WHERE status = 'done' AND last_attempted_at IS NOT NULL
	GROUP BY 1;
	RETURN NULL;
END
$$;

INSERT INTO hookrelay.schema_migrations (version) VALUES (29) ON CONFLICT (version) DO NOTHING;
