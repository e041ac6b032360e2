-- 0034: the use of signing secrets is counted by a fingerprint of each
-- secret, not by its position in the source's list (see the PostgreSQL
-- migration of the same number). The counts kept by position carry over
-- as 'slot:N'.
CREATE TABLE hookrelay.secret_hours (
	source   TEXT    NOT NULL,
	secret   TEXT    NOT NULL,
	hour     INTEGER NOT NULL,
	verified INTEGER NOT NULL,
	last_at  INTEGER NOT NULL,
	PRIMARY KEY (source, secret, hour)
) WITHOUT ROWID;
INSERT INTO hookrelay.secret_hours (source, secret, hour, verified, last_at)
SELECT source, 'slot:' || slot, hour, verified, last_at FROM hookrelay.secret_slot_hours;
DROP TABLE hookrelay.secret_slot_hours;
