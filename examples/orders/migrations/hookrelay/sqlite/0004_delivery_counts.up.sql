-- hookrelay's migration 0004_delivery_counts.sql, its tables named as hookrelay_events is.
CREATE TABLE IF NOT EXISTS hookrelay_schema_migrations (
	version    INTEGER NOT NULL PRIMARY KEY,
	applied_at INTEGER NOT NULL
);

-- 0004: delivery counts kept as deliveries change state.
--
-- Stats and the backlog gauges read these rows instead of counting every
-- delivery, so a scrape costs the same at ten million deliveries as at ten
-- thousand. Triggers keep them, so every statement that writes deliveries
-- (ingest, claim, outcome, release, replay, backfill, prune by cascade)
-- counts, whoever wrote it. SQLite has one writer, so a row trigger per
-- delivery costs one small write and never waits on another.
CREATE TABLE hookrelay_delivery_counts (
	destination TEXT    NOT NULL,
	status      TEXT    NOT NULL,
	n           INTEGER NOT NULL,
	PRIMARY KEY (destination, status)
) WITHOUT ROWID;

INSERT INTO hookrelay_delivery_counts (destination, status, n)
SELECT destination, status, count(*) FROM hookrelay_deliveries GROUP BY destination, status;

CREATE TRIGGER delivery_counts_insert AFTER INSERT ON hookrelay_deliveries
BEGIN
	INSERT INTO hookrelay_delivery_counts (destination, status, n) VALUES (NEW.destination, NEW.status, 1)
	ON CONFLICT (destination, status) DO UPDATE SET n = n + 1;
END;

CREATE TRIGGER delivery_counts_update AFTER UPDATE OF status, destination ON hookrelay_deliveries
WHEN NEW.status <> OLD.status OR NEW.destination <> OLD.destination
BEGIN
	UPDATE hookrelay_delivery_counts SET n = n - 1 WHERE destination = OLD.destination AND status = OLD.status;
	INSERT INTO hookrelay_delivery_counts (destination, status, n) VALUES (NEW.destination, NEW.status, 1)
	ON CONFLICT (destination, status) DO UPDATE SET n = n + 1;
END;

CREATE TRIGGER delivery_counts_delete AFTER DELETE ON hookrelay_deliveries
BEGIN
	UPDATE hookrelay_delivery_counts SET n = n - 1 WHERE destination = OLD.destination AND status = OLD.status;
END;

INSERT OR IGNORE INTO hookrelay_schema_migrations (version, applied_at) VALUES (4, CAST((julianday('now') - 2440587.5) * 86400000000 AS INTEGER));
