-- 0032: what the processes sharing one database agree on through it.
--
-- fleet_leases elects the one process of a fleet that runs what must run
-- once (retention, alert evaluation): a row per lease, with its holder
-- and when it runs out, renewed by the holder every few seconds. SQLite
-- has one machine's processes, so their clock decides expiry.
CREATE TABLE hookrelay.fleet_leases (
	name        TEXT    NOT NULL PRIMARY KEY,
	holder      TEXT    NOT NULL,
	acquired_at INTEGER NOT NULL,
	expires_at  INTEGER NOT NULL
) WITHOUT ROWID;

-- rejection_counts holds what every receiver rejected, per source, reason
-- and interval, added to every second, so that the signature-failure rule
-- judges the total of every process; the runner deletes the intervals
-- past the rule's window. Its key leads with the interval, for the rule's
-- range read and that delete.
CREATE TABLE hookrelay.rejection_counts (
	at     INTEGER NOT NULL,
	source TEXT    NOT NULL,
	reason TEXT    NOT NULL,
	n      INTEGER NOT NULL,
	PRIMARY KEY (at, source, reason)
) WITHOUT ROWID;

-- alert_marks records when each rule last raised its alert about each
-- subject (a source), so that an alert goes out once, whichever process
-- evaluates the rule.
CREATE TABLE hookrelay.alert_marks (
	rule      TEXT    NOT NULL,
	subject   TEXT    NOT NULL,
	raised_at INTEGER NOT NULL,
	PRIMARY KEY (rule, subject)
) WITHOUT ROWID;
