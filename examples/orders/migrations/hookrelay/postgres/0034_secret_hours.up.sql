-- hookrelay's migration 0034_secret_hours.sql, its tables named as hookrelay.events is.
CREATE SCHEMA IF NOT EXISTS "hookrelay";
CREATE TABLE IF NOT EXISTS hookrelay.schema_migrations (
	version    integer PRIMARY KEY,
	applied_at timestamptz NOT NULL DEFAULT now()
);

-- 0034: the use of signing secrets is counted by a fingerprint of each
-- secret, not by its position in the source's list. During a rolling
-- rotation the nodes of a fleet list the new and the old secret in
-- different orders; counted by position, one node's slot 0 (the old
-- secret) and another's (the new one) were one row. The counts kept by
-- position carry over as 'slot:N'; the rotation status reads them as
-- slot N of the source's list today, as before.
CREATE TABLE hookrelay.secret_hours (
	source   text COLLATE "C" NOT NULL,
	secret   text COLLATE "C" NOT NULL,
	hour     timestamptz NOT NULL,
	verified bigint      NOT NULL,
	last_at  timestamptz NOT NULL,
	PRIMARY KEY (source, secret, hour)
);
INSERT INTO hookrelay.secret_hours (source, secret, hour, verified, last_at)
SELECT source, 'slot:' || slot, hour, verified, last_at FROM hookrelay.secret_slot_hours;
DROP TABLE hookrelay.secret_slot_hours;

INSERT INTO hookrelay.schema_migrations (version) VALUES (34) ON CONFLICT (version) DO NOTHING;
