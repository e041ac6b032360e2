-- 0004: delivery counts kept as deliveries change state.
--
-- Stats and the backlog gauges read these rows instead of counting every
-- delivery, so a scrape costs the same at ten million deliveries as at ten
-- thousand. Triggers keep them, so every statement that writes deliveries
-- (ingest, claim, outcome, release, replay, backfill, prune by cascade)
-- counts, whoever wrote it. SQLite has one writer, so a row trigger per
-- delivery costs one small write and never waits on another.
CREATE TABLE hookrelay.delivery_counts (
	destination TEXT    NOT NULL,
	status      TEXT    NOT NULL,
	n           INTEGER NOT NULL,
	PRIMARY KEY (destination, status)
) WITHOUT ROWID;

INSERT INTO hookrelay.delivery_counts (destination, status, n)
SELECT destination, status, count(*) FROM hookrelay.deliveries GROUP BY destination, status;

CREATE TRIGGER delivery_counts_insert AFTER INSERT ON hookrelay.deliveries
BEGIN
	INSERT INTO hookrelay.delivery_counts (destination, status, n) VALUES (NEW.destination, NEW.status, 1)
	ON CONFLICT (destination, status) DO UPDATE SET n = n + 1;
END;

CREATE TRIGGER delivery_counts_update AFTER UPDATE OF status, destination ON hookrelay.deliveries
WHEN NEW.status <> OLD.status OR NEW.destination <> OLD.destination
BEGIN
	UPDATE hookrelay.delivery_counts SET n = n - 1 WHERE destination = OLD.destination AND status = OLD.status;
	INSERT INTO hookrelay.delivery_counts (destination, status, n) VALUES (NEW.destination, NEW.status, 1)
	ON CONFLICT (destination, status) DO UPDATE SET n = n + 1;
END;

CREATE TRIGGER delivery_counts_delete AFTER DELETE ON hookrelay.deliveries
BEGIN
	UPDATE hookrelay.delivery_counts SET n = n - 1 WHERE destination = OLD.destination AND status = OLD.status;
END;
