-- hookrelay's migration 0039_delivery_leases.sql, its tables named as hookrelay_events is.
CREATE TABLE IF NOT EXISTS hookrelay_schema_migrations (
	version    INTEGER NOT NULL PRIMARY KEY,
	applied_at INTEGER NOT NULL
);

-- 0039: deliveries leased at ingest whose rows are written at their
-- outcome (see the PostgreSQL migration of the same number). The ingest
-- transaction reserves the deliveries' ids from their AUTOINCREMENT
-- sequence and writes one row here for the batch, its deliveries as a
-- JSON array of [id, event id, destination, lease token, lease end].
CREATE TABLE hookrelay_delivery_leases (
	id          INTEGER NOT NULL PRIMARY KEY, -- the batch's first delivery id
	lease_until INTEGER NOT NULL,             -- the earliest of its leases' ends
	received_at INTEGER NOT NULL,             -- its earliest event's, which retention keeps
	deliveries  TEXT    NOT NULL
);

CREATE INDEX delivery_leases_until ON hookrelay_delivery_leases (lease_until);

INSERT OR IGNORE INTO hookrelay_schema_migrations (version, applied_at) VALUES (39, CAST((julianday('now') - 2440587.5) * 86400000000 AS INTEGER));
