-- hookrelay's migration 0032_fleet.sql, its tables named as hookrelay.events is.
CREATE SCHEMA IF NOT EXISTS "hookrelay";
CREATE TABLE IF NOT EXISTS hookrelay.schema_migrations (
	version    integer PRIMARY KEY,
	applied_at timestamptz NOT NULL DEFAULT now()
);

-- 0032: what the processes sharing one database agree on through it.
--
-- fleet_leases elects the one process of a fleet that runs what must run
-- once (retention, alert evaluation): a row per lease, with its holder
-- and when it runs out, renewed by the holder every few seconds and
-- compared with the database's clock alone. A lease row rather than an
-- advisory lock: it needs no connection held for the holder's lifetime,
-- so it works through a transaction-pooling proxy and on SQLite alike.
CREATE TABLE hookrelay.fleet_leases (
	name        text COLLATE "C" NOT NULL PRIMARY KEY,
	holder      text NOT NULL,
	acquired_at timestamptz NOT NULL,
	expires_at  timestamptz NOT NULL
);

-- rejection_counts holds what every receiver rejected, per source, reason
-- and interval, added to by each process every second, so that the
-- signature-failure rule judges the fleet's total; the fleet's runner
-- deletes the intervals past the rule's window. Its key leads with the
-- interval, for the rule's range read and that delete.
CREATE TABLE hookrelay.rejection_counts (
	at     timestamptz NOT NULL,
	source text COLLATE "C" NOT NULL,
	reason text COLLATE "C" NOT NULL,
	n      bigint NOT NULL,
	PRIMARY KEY (at, source, reason)
);

-- alert_marks records when each rule last raised its alert about each
-- subject (a source), so that an alert goes out once per fleet, whichever
-- process evaluates the rule and however often the runner changes.
CREATE TABLE hookrelay.alert_marks (
	rule      text COLLATE "C" NOT NULL,
	subject   text COLLATE "C" NOT NULL,
	raised_at timestamptz NOT NULL,
	PRIMARY KEY (rule, subject)
);

INSERT INTO hookrelay.schema_migrations (version) VALUES (32) ON CONFLICT (version) DO NOTHING;
