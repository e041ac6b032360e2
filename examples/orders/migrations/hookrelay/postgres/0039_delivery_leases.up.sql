-- hookrelay's migration 0039_delivery_leases.sql, its tables named as hookrelay.events is.
CREATE SCHEMA IF NOT EXISTS "hookrelay";
CREATE TABLE IF NOT EXISTS hookrelay.schema_migrations (
	version    integer PRIMARY KEY,
	applied_at timestamptz NOT NULL DEFAULT now()
);

-- 0039: deliveries leased at ingest whose rows are written at their
-- outcome (store.Lease.Deferred; docs/performance.md). An ingest statement
-- that leases deliveries without an ordering key reserves their ids from
-- the deliveries' sequence and, instead of a row per delivery, writes one
-- row here for the whole batch: each delivery's id, event, destination,
-- lease token and lease end, side by side. The outcome then inserts the
-- delivery's row whole. Once the batch's earliest lease has run out, a
-- claim deletes its row and writes the deliveries still missing as ingest
-- once wrote them (processing, the token, the lease), to be taken over as
-- any claimed row whose lease ran out. Retention deletes no event
-- received at or after the earliest received_at here: a deferred delivery
-- not finished has no row to keep its event.
CREATE TABLE hookrelay.delivery_leases (
	id           bigint PRIMARY KEY,          -- the batch's first delivery id
	lease_until  timestamptz NOT NULL,        -- the earliest of lease_untils
	received_at  timestamptz NOT NULL,        -- its earliest event's, which retention keeps
	delivery_ids bigint[] NOT NULL,
	event_ids    text[] COLLATE "C" NOT NULL,
	destinations text[] COLLATE "C" NOT NULL,
	tokens       text[] NOT NULL,
	lease_untils timestamptz[] NOT NULL
);

CREATE INDEX delivery_leases_until ON hookrelay.delivery_leases (lease_until);

INSERT INTO hookrelay.schema_migrations (version) VALUES (39) ON CONFLICT (version) DO NOTHING;
