package postgres

// The SQL of a partitioned event log (see EnablePartitions and
// MaintainPartitions), next to migrations/. The partitions' own names are
// made at run time and quoted with pgx.Identifier; hookrelay.NAME names
// the parents, as everywhere.

const (
	// retireShared is the Dialect's RetireLock: the shared side of the
	// advisory lock whose exclusive side (retireExclusive) a drop of a
	// partition holds. Every transaction that can make a finished
	// delivery live again or give a stored event a new delivery (a
	// replay's re-arming, a backfill) takes it first, so that while a
	// partition's deliveries are counted and dropped, none of them
	// changes status. The key is "hookretr" in ASCII.
	retireShared = `SELECT pg_advisory_xact_lock_shared(x'686f6f6b72657472'::bigint)`

	// retireExclusive takes the drop's side of the lock of retireShared.
	retireExclusive = `SELECT pg_advisory_xact_lock(x'686f6f6b72657472'::bigint)`

	// convertLockKey is the session advisory lock a conversion holds from
	// its first step to its last, so that processes starting at once
	// convert a database once ("hookconv").
	convertLockKey int64 = 0x686f6f6b636f6e76

	lockConvert   = `SELECT pg_advisory_lock($1)`
	unlockConvert = `SELECT pg_advisory_unlock($1)`

	// selectPartitions returns the partitions of events, each with its
	// bound as pg_get_expr writes it and the planner's estimates of its
	// rows and of those of the deliveries partition of the same name.
	selectPartitions = `SELECT e.relname, pg_get_expr(e.relpartbound, e.oid),
	greatest(e.reltuples, 0)::bigint, greatest(coalesce(d.reltuples, 0), 0)::bigint
FROM pg_inherits i
JOIN pg_class e ON e.oid = i.inhrelid
LEFT JOIN pg_class d ON d.relnamespace = e.relnamespace AND d.relname = 'deliveries' || substr(e.relname, 7)
WHERE i.inhparent = to_regclass('hookrelay.events')`

	// dropLockTimeout bounds how long a drop or a creation of partitions
	// waits for its locks on the parents (ACCESS EXCLUSIVE, for the
	// moment the catalog changes take): every statement on the event log
	// queues behind a lock request, so one that would wait for a long
	// query gives up, and the next pass tries again.
	dropLockTimeout = `SET LOCAL lock_timeout = '2s'`

	// lockParents takes the parents' ACCESS EXCLUSIVE locks that creating
	// or dropping a partition needs, in the order of partitionedTables,
	// without recursing into every partition.
	lockParents = `LOCK TABLE ONLY hookrelay.events, hookrelay.deliveries, hookrelay.attempts IN ACCESS EXCLUSIVE MODE`

	// selectLive counts, by destination and status, the pending,
	// processing and failed deliveries of a deliveries partition (%[1]s),
	// from its partial indexes: each branch's condition is the predicate
	// of one (the claim's deliveries_due and deliveries_processing), so
	// that the planner reads them and not the partition's finished rows,
	// which a condition on the three statuses at once would scan.
	selectLive = `SELECT destination, status, count(*) FROM %[1]s
WHERE status IN ('pending', 'failed') GROUP BY destination, status
UNION ALL
SELECT destination, status, count(*) FROM %[1]s
WHERE status = 'processing' GROUP BY destination, status`

	// subtractCounts takes the deliveries of a partition (%s) out of the
	// delivery counts and failure counts that the triggers of migrations
	// 0004 and 0024 keep, as their delete trigger would (a DROP fires no
	// trigger), and returns how many there are.
	subtractCounts = `WITH c AS MATERIALIZED (
	SELECT destination, status, failure_kind, count(*) AS n FROM %s GROUP BY destination, status, failure_kind
), counts AS (
	INSERT INTO hookrelay.delivery_count_deltas (destination, status, n)
	SELECT destination, status, -sum(n) FROM c GROUP BY destination, status
), failures AS (
	INSERT INTO hookrelay.failure_count_deltas (destination, status, kind, n)
	SELECT destination, status, failure_kind, -n FROM c WHERE status IN ('failed', 'dead')
)
SELECT coalesce(sum(n), 0)::bigint FROM c`

	// deleteRangeKeys deletes the dedupe keys of the events whose ids lie
	// in [$1, $2), from event_keys's index on event_id: a partition's,
	// whose events have one key each.
	deleteRangeKeys = `DELETE FROM hookrelay.event_keys WHERE event_id >= $1 AND event_id < $2`

	// deletePartitionDigests deletes the signature digests the events of
	// a partition (%s) hold, as the delete trigger of migration 0036
	// would: a digest another provider id has taken over since stays.
	deletePartitionDigests = `DELETE FROM hookrelay.signature_digests h USING %s o
WHERE o.signature_digest IS NOT NULL
	AND h.source = o.source AND h.digest = o.signature_digest AND h.provider_event_id = o.provider_event_id`

	// defaultHolds tells whether a DEFAULT events partition (%s) holds an
	// event whose id lies in [$1, $2), from its primary key.
	defaultHolds = `SELECT EXISTS (SELECT 1 FROM %s WHERE id >= $1 AND id < $2)`

	// analyzeParents refreshes the parents' own statistics, which
	// autovacuum never gathers for a partitioned table (it does for each
	// partition); it reads a sample of every partition.
	analyzeParents = `ANALYZE hookrelay.events, hookrelay.deliveries, hookrelay.attempts`

	// selectLeftovers returns the names (without events_) of the
	// tables of events of the store's schema named as partitions are
	// that are not partitions: detached by a drop whose process stopped
	// before it dropped them.
	selectLeftovers = `SELECT substr(relname, 8) FROM pg_class
WHERE relnamespace = to_regnamespace($1) AND relkind = 'r' AND NOT relispartition
	AND relname ~ '^events_(p[0-9]{8}_[0-9]{4}|before_[0-9]{8}_[0-9]{4})$'`

	// The conversion (EnablePartitions).

	// fillAttemptEvents sets the event id of the attempts whose ids lie
	// in ($1, $2] and have none, from their deliveries.
	fillAttemptEvents = `UPDATE hookrelay.attempts a SET event_id = d.event_id FROM hookrelay.deliveries d
WHERE a.id > $1 AND a.id <= $2 AND a.event_id IS NULL AND d.id = a.delivery_id`

	// deleteOrphanAttempts deletes the attempts whose ids lie in ($1,
	// $2] left without an event id: their delivery is gone.
	deleteOrphanAttempts = `DELETE FROM hookrelay.attempts WHERE id > $1 AND id <= $2 AND event_id IS NULL`

	dropNewKeys = `DROP TABLE IF EXISTS hookrelay.event_keys_new`

	// createNewKeys is event_keys as a partitioned event log has it; its
	// primary key and index are added once it is filled.
	createNewKeys = `CREATE TABLE hookrelay.event_keys_new (
	source            text COLLATE "C" NOT NULL,
	provider_event_id text COLLATE "C" NOT NULL,
	event_id          text COLLATE "C" NOT NULL
)`

	copyAllKeys = `INSERT INTO hookrelay.event_keys_new (source, provider_event_id, event_id)
SELECT source, provider_event_id, id FROM hookrelay.events`

	keyNewKeys = `ALTER TABLE hookrelay.event_keys_new ADD CONSTRAINT event_keys_new_pkey PRIMARY KEY (source, provider_event_id)`

	// indexNewKeys serves the deletion of a dropped partition's keys, by
	// the range of their event ids.
	indexNewKeys = `CREATE INDEX event_keys_new_event_id ON hookrelay.event_keys_new (event_id)`

	// catchUpKeys copies the keys of the events whose ids are at or above
	// $1, those that copyAllKeys may not have seen.
	catchUpKeys = `INSERT INTO hookrelay.event_keys_new (source, provider_event_id, event_id)
SELECT source, provider_event_id, id FROM hookrelay.events WHERE id >= $1
ON CONFLICT (source, provider_event_id) DO NOTHING`

	// selectTableIndexes describes the indexes of table $1 (its name,
	// qualified): name, definition, the definition of the PRIMARY KEY or
	// UNIQUE constraint it backs (or ''), whether it is unique, and
	// whether it holds the column $2.
	selectTableIndexes = `SELECT c.relname, pg_get_indexdef(i.indexrelid), coalesce(pg_get_constraintdef(con.oid), ''),
	i.indisunique,
	(SELECT a.attnum FROM pg_attribute a WHERE a.attrelid = i.indrelid AND a.attname = $2) = ANY (i.indkey::int2[])
FROM pg_index i
JOIN pg_class c ON c.oid = i.indexrelid
LEFT JOIN pg_constraint con ON con.conindid = i.indexrelid AND con.conrelid = i.indrelid AND con.contype IN ('p', 'u')
WHERE i.indrelid = to_regclass($1)`

	// selectTableTriggers returns the name and definition of the
	// triggers of table $1 (its name, qualified).
	selectTableTriggers = `SELECT tgname, pg_get_triggerdef(oid) FROM pg_trigger WHERE tgrelid = to_regclass($1) AND NOT tgisinternal`
)

// takeKeys makes event_keys the table copyKeys filled, in place of the
// view of migration 0038, and makes attempts' event ids, all filled in
// and proved so by the constraint of checkBound, NOT NULL (which that
// constraint spares a read of the table).
var takeKeys = []string{
	`DROP VIEW hookrelay.event_keys`,
	`ALTER TABLE hookrelay.event_keys_new RENAME TO event_keys`,
	`ALTER INDEX hookrelay.event_keys_new_pkey RENAME TO event_keys_pkey`,
	`ALTER INDEX hookrelay.event_keys_new_event_id RENAME TO event_keys_event_id`,
	`ALTER TABLE hookrelay.attempts ALTER COLUMN event_id SET NOT NULL`,
}

// partitionedTriggers are the triggers of a partitioned event log beyond
// those it keeps (migration 0038's functions): the deletes of an event's
// deliveries and of a delivery's attempts join on the partition key, in
// place of delete_referencing's, and an event's dedupe key goes with it.
var partitionedTriggers = []string{
	`CREATE TRIGGER events_delete_deliveries AFTER DELETE ON hookrelay.events
	REFERENCING OLD TABLE AS old_rows
	FOR EACH STATEMENT EXECUTE FUNCTION hookrelay.delete_event_deliveries()`,
	`CREATE TRIGGER deliveries_delete_attempts AFTER DELETE ON hookrelay.deliveries
	REFERENCING OLD TABLE AS old_rows
	FOR EACH STATEMENT EXECUTE FUNCTION hookrelay.delete_delivery_attempts()`,
	`CREATE TRIGGER events_delete_event_keys AFTER DELETE ON hookrelay.events
	REFERENCING OLD TABLE AS old_rows
	FOR EACH STATEMENT EXECUTE FUNCTION hookrelay.delete_event_keys()`,
}
