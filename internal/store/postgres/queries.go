package postgres

// The SQL of this driver, next to migrations/.

const (
	// migrateLockKey is the pg_advisory_xact_lock key that serializes
	// migrations across processes ("hookrely" in ASCII).
	migrateLockKey int64 = 0x686f6f6b72656c79

	lockMigrations = `SELECT pg_advisory_xact_lock($1)`

	createSchemaMigrations = `CREATE TABLE IF NOT EXISTS hookrelay.schema_migrations (
	version    integer PRIMARY KEY,
	applied_at timestamptz NOT NULL DEFAULT now()
)`

	selectMigrations = `SELECT version FROM hookrelay.schema_migrations`

	recordMigration = `INSERT INTO hookrelay.schema_migrations (version) VALUES ($1)`

	// notifyChannel is the LISTEN/NOTIFY channel of new deliveries; the
	// payload is a destination name.
	notifyChannel = "hookrelay_deliveries"

	// ingestBatch stores a whole batch in one statement: the events arrive
	// as parallel arrays (in the order the caller sorted them), the
	// deliveries as arrays keyed by event id, $20 is
	// store.ReplayWindow in microseconds. It is ingestHead, then the
	// insert of the events of one layout of the event log (ingestEvents
	// unpartitioned, ingestKeyed partitioned), then the deliveries'
	// (ingestDeliveries, and unpartitioned ingestDeferred).
	//
	// First each signature digest of the batch is claimed for its
	// provider id (claimed; the first item of the batch that carries it
	// claims it): inserted, or, when the source already has it, its
	// primary key locked — after waiting for the commit of a concurrent
	// batch that inserted it, on whichever node — and returned when it is
	// held by the same provider id (a provider's retry: received_at is
	// kept) or held past the window (taken over). A digest held by
	// another provider id within the window is not returned. Because
	// claimed is the latest committed holder, not the statement's
	// snapshot, two batches that race on one digest cannot both see it
	// free, nor can a retry racing its first post see its own digest as
	// someone else's.
	//
	// An event is inserted when it carries no digest or its provider id
	// holds it; a duplicate (source, provider_event_id), also of an earlier
	// row of the same batch, is skipped; only the events inserted get
	// deliveries. The dedupe is a unique index on (source,
	// provider_event_id): the events' own, or, partitioned, event_keys's
	// primary key, inserted before its event (see ingestKeyed). The
	// statement sorts by n what it reads of claimed, so every digest is
	// claimed before any key is inserted: a batch never holds an event's
	// key while it waits for a digest, and batches that claim digests in
	// (source, digest) order and insert keys in (source, provider id)
	// order cannot deadlock. A delivery with a lease token is created
	// leased at ingest, as a claim leaves it (processing, the attempt
	// counted, the token and its lease_until); one with an empty token is
	// created pending. Unpartitioned, a leased delivery without an
	// ordering key is deferred (store.Lease.Deferred; see ingestDeferred).
	//
	// It returns one row per event inserted (its id, NULLs and
	// 'stored'), one per leased delivery created (its event id,
	// destination, id and 'leased', or 'deferred' when its row is not
	// written), and one per event not inserted whose digest another
	// provider id holds: 'duplicate' when the statement's snapshot holds
	// a key under its own (source, provider id), 'replayed' otherwise.
	ingestBatch = ingestHead + ingestEvents + ingestDeliveries + ` WHERE x.lease_token = '' OR x.ordering_key <> ''` +
		ingestDeliveriesEnd + ingestDeferred + ingestResults + `
UNION ALL
SELECT event_id, destination, id, 'deferred' FROM r` + ingestDuplicates

	// ingestBatchKeyed is ingestBatch on a partitioned event log, which
	// writes every delivery's row at ingest.
	ingestBatchKeyed = ingestHead + ingestKeyed + ingestDeliveries + ingestDeliveriesEnd + ingestResults + ingestDuplicates

	ingestHead = `WITH input AS (
	SELECT * FROM unnest(
		$1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::bytea[], $7::text[],
		$8::text[], $9::integer[], $10::timestamptz[], $11::timestamptz[], $15::text[], $16::bytea[], $17::text[]
	) WITH ORDINALITY AS i(
		id, source, provider_event_id, id_origin, type, body, content_type,
		headers, signature_slot, occurred_at, received_at, key_id, signature_digest, raw_query, n
	)
), claimed AS (
	INSERT INTO hookrelay.signature_digests AS h (source, digest, provider_event_id, received_at)
	SELECT DISTINCT ON (source, signature_digest) source, signature_digest, provider_event_id, received_at
	FROM input WHERE signature_digest IS NOT NULL
	ORDER BY source, signature_digest, n
	ON CONFLICT (source, digest) DO UPDATE SET
		provider_event_id = excluded.provider_event_id,
		received_at = CASE WHEN h.provider_event_id = excluded.provider_event_id
			AND h.received_at >= excluded.received_at - $20::bigint * interval '1 microsecond'
			THEN h.received_at ELSE excluded.received_at END
	WHERE h.provider_event_id = excluded.provider_event_id
		OR h.received_at < excluded.received_at - $20::bigint * interval '1 microsecond'
	RETURNING source, digest, provider_event_id
)`

	// ingestEvents inserts the events into an unpartitioned events
	// table, whose unique index (source, provider_event_id) skips the
	// duplicates.
	ingestEvents = `, ins AS (
	INSERT INTO hookrelay.events (
		id, source, provider_event_id, id_origin, type, body, content_type,
		headers, signature_slot, occurred_at, received_at, key_id, signature_digest, raw_query
	)
	SELECT i.id, i.source, i.provider_event_id, i.id_origin, i.type, i.body, i.content_type,
		i.headers, i.signature_slot, i.occurred_at, i.received_at, i.key_id, i.signature_digest, i.raw_query
	FROM input i LEFT JOIN claimed c ON c.source = i.source AND c.digest = i.signature_digest
	WHERE i.signature_digest IS NULL OR c.provider_event_id = i.provider_event_id
	ORDER BY i.n
	ON CONFLICT (source, provider_event_id) DO NOTHING
	RETURNING id, received_at, coalesce(occurred_at, received_at) AS order_at
)`

	// ingestKeyed inserts the keys of the events into event_keys, whose
	// primary key (source, provider_event_id) skips the duplicates, and
	// then the events whose key it inserted into the partitioned events
	// table. A concurrent batch inserting the same key waits for this
	// one's commit on the key and then skips its event, as it would on
	// the events' unique index; the events' primary key (their id, the
	// partition key) needs no lock in common.
	ingestKeyed = `, keyed AS (
	INSERT INTO hookrelay.event_keys (source, provider_event_id, event_id)
	SELECT i.source, i.provider_event_id, i.id
	FROM input i LEFT JOIN claimed c ON c.source = i.source AND c.digest = i.signature_digest
	WHERE i.signature_digest IS NULL OR c.provider_event_id = i.provider_event_id
	ORDER BY i.n
	ON CONFLICT (source, provider_event_id) DO NOTHING
	RETURNING event_id
), ins AS (
	INSERT INTO hookrelay.events (
		id, source, provider_event_id, id_origin, type, body, content_type,
		headers, signature_slot, occurred_at, received_at, key_id, signature_digest, raw_query
	)
	SELECT i.id, i.source, i.provider_event_id, i.id_origin, i.type, i.body, i.content_type,
		i.headers, i.signature_slot, i.occurred_at, i.received_at, i.key_id, i.signature_digest, i.raw_query
	FROM input i JOIN keyed k ON k.event_id = i.id
	ORDER BY i.n
	RETURNING id, received_at, coalesce(occurred_at, received_at) AS order_at
)`

	// ingestDeliveries inserts the deliveries of the events inserted,
	// those that ingestDeliveriesEnd's caller's WHERE keeps.
	ingestDeliveries = `, d AS (
	INSERT INTO hookrelay.deliveries (
		event_id, destination, status, attempts, ordering_key, next_attempt_at, order_at,
		lease_until, lease_token, created_at, updated_at
	)
	SELECT ins.id, x.destination,
		CASE WHEN x.lease_token = '' THEN 'pending' ELSE 'processing' END,
		CASE WHEN x.lease_token = '' THEN 0 ELSE 1 END,
		x.ordering_key, ins.received_at, ins.order_at,
		x.lease_until, nullif(x.lease_token, ''), now(), now()
	FROM ins JOIN unnest($12::text[], $13::text[], $14::text[], $18::text[], $19::timestamptz[]) WITH ORDINALITY
		AS x(event_id, destination, ordering_key, lease_token, lease_until, n) ON x.event_id = ins.id`

	ingestDeliveriesEnd = `
	ORDER BY x.n
	ON CONFLICT (event_id, destination) DO NOTHING
	RETURNING id, event_id, destination, lease_token
)`

	// ingestDeferred reserves the ids of the leased deliveries without an
	// ordering key (r; a destination listed twice for one event is one
	// delivery, its first) and writes their leases in one row of
	// delivery_leases for the batch (migration 0039). Their rows are
	// written with their outcomes (completeDeliveries), or by a claim
	// once the batch's earliest lease has run out (sweepLeases).
	ingestDeferred = `, r AS (
	SELECT DISTINCT ON (x.event_id, x.destination) x.event_id, x.destination, x.lease_token, x.lease_until,
		ins.received_at, nextval('hookrelay.deliveries_id_seq') AS id
	FROM ins JOIN unnest($12::text[], $13::text[], $14::text[], $18::text[], $19::timestamptz[]) WITH ORDINALITY
		AS x(event_id, destination, ordering_key, lease_token, lease_until, n) ON x.event_id = ins.id
	WHERE x.lease_token <> '' AND x.ordering_key = ''
	ORDER BY x.event_id, x.destination, x.n
), l AS (
	INSERT INTO hookrelay.delivery_leases (id, lease_until, received_at, delivery_ids, event_ids, destinations, tokens, lease_untils)
	SELECT min(id), min(lease_until), min(received_at), array_agg(id ORDER BY id), array_agg(event_id ORDER BY id),
		array_agg(destination ORDER BY id), array_agg(lease_token ORDER BY id), array_agg(lease_until ORDER BY id)
	FROM r HAVING count(*) > 0
)`

	ingestResults = `
SELECT id, NULL::text, NULL::bigint, 'stored' FROM ins
UNION ALL
SELECT event_id, destination, id, 'leased' FROM d WHERE lease_token IS NOT NULL`

	ingestDuplicates = `
UNION ALL
SELECT i.id, NULL, NULL, CASE WHEN EXISTS (
		SELECT 1 FROM hookrelay.event_keys k WHERE k.source = i.source AND k.provider_event_id = i.provider_event_id
	) THEN 'duplicate' ELSE 'replayed' END
FROM input i LEFT JOIN claimed c ON c.source = i.source AND c.digest = i.signature_digest
WHERE i.signature_digest IS NOT NULL AND c.provider_event_id IS DISTINCT FROM i.provider_event_id`

	// notifyDestinations tells every listening process, when the
	// transaction commits, which destinations got new deliveries.
	notifyDestinations = `SELECT pg_notify('` + notifyChannel + `', d) FROM unnest($1::text[]) AS d`

	// reloadChannel is the LISTEN/NOTIFY channel of reloads; the payload
	// is the id of the node that reloaded.
	reloadChannel = "hookrelay_reloads"

	// notifyReload announces a reload of node $1.
	notifyReload = `SELECT pg_notify('` + reloadChannel + `', $1)`

	// asyncCommit lets the current transaction commit without waiting for
	// its WAL to reach disk; never used on the ingest path.
	asyncCommit = `SELECT set_config('synchronous_commit', 'off', true)`

	// indexScans keeps the current transaction's plans off sequential
	// scans. The outcome statement finds its rows by primary key; planned
	// while the deliveries table was small — a fresh database whose
	// deliveries are written at their outcomes — its generic plan scanned
	// the whole table for every batch, and kept doing so as the table grew:
	// a third of the server's time at 1 200 events/s × 4.
	indexScans = `SELECT set_config('enable_seqscan', 'off', true)`

	// syncCommit makes the current transaction wait for its WAL flush
	// again after asyncCommit.
	syncCommit = `SELECT set_config('synchronous_commit', 'on', true)`

	// hashJoins keeps the current transaction's plans off nested loops:
	// for an ingest, whose joins are all of its own arrays and CTEs, never
	// of a table.
	hashJoins = `SELECT set_config('enable_nestloop', 'off', true)`

	// genericPlans lets the current transaction's prepared statements run
	// on their generic plan. The claim's plan is the same for every
	// destination and time — walk the due index from its oldest entry —
	// yet planning it anew for each claim cost three times its execution.
	genericPlans = `SELECT set_config('plan_cache_mode', 'force_generic_plan', true)`

	// The delivery queue.

	// keyLockClass is the first key of the two-key transaction advisory
	// locks a claim takes on (destination, ordering key); the second is
	// the hash of the pair. The two-key space does not overlap the one-key
	// space of migrateLockKey.
	keyLockClass int32 = 0x686b7175 // "hkqu"

	// keyIsFree holds for a candidate c of destination $1 at time $2 that
	// has no ordering key, or that is its key's head — no live delivery
	// of the key comes before it by (order_at, id) — while no delivery of
	// the key holds a live lease.
	keyIsFree = `(c.ordering_key = '' OR (
		NOT EXISTS (
			SELECT 1 FROM hookrelay.deliveries h
			WHERE h.destination = $1 AND h.ordering_key = c.ordering_key
				AND h.status IN ('pending', 'failed', 'processing') AND h.ordering_key <> ''
				AND (h.order_at, h.id) < (c.order_at, c.id)
		) AND NOT EXISTS (
			SELECT 1 FROM hookrelay.deliveries l
			WHERE l.destination = $1 AND l.status = 'processing' AND l.lease_until > $2
				AND l.ordering_key = c.ordering_key
		)
	))`

	// recordLost ends the leases of up to $3 deliveries of destination
	// $1 that ran out by $2, each as a lost attempt: it records the
	// attempt, with the error $5, attempted when the claim leased it
	// (updated_at, which only a claim and an outcome set) and lasting
	// its lease, and sets the delivery dead when its attempts have
	// reached $4, failed otherwise — due as it was, so that the claim
	// that follows in the same transaction takes it again at once, in
	// its place in the queue. It returns the dead ones with their
	// events. A row another transaction holds locked is skipped: a
	// claimer about to lease it, or the transaction of CompleteWithin,
	// whose handler still runs whatever its lease says.
	recordLost = `WITH lost AS MATERIALIZED (
	SELECT c.id, c.event_id, c.updated_at, c.lease_until, c.replay_count, c.attempts >= $4 AS dead FROM hookrelay.deliveries c
	WHERE c.destination = $1 AND c.status = 'processing' AND c.lease_until <= $2
	ORDER BY c.lease_until, c.id
	LIMIT $3
	FOR UPDATE OF c SKIP LOCKED
), a AS (
	INSERT INTO hookrelay.attempts (delivery_id, event_id, attempted_at, duration_ms, error, round)
	SELECT id, event_id, updated_at, (extract(epoch FROM lease_until - updated_at) * 1000)::bigint, $5, replay_count
	FROM lost ORDER BY lease_until, id
), d AS (
	UPDATE hookrelay.deliveries c SET
		status = CASE WHEN lost.dead THEN 'dead' ELSE 'failed' END,
		finished_at = CASE WHEN lost.dead THEN $2::timestamptz END,
		last_error = $5, last_status_code = 0, lease_until = NULL, lease_token = NULL, updated_at = $2
	FROM lost WHERE c.id = lost.id
	RETURNING
		c.id, c.event_id, c.destination, c.status, c.attempts, c.replay_count, c.ordering_key,
		c.next_attempt_at, c.lease_until, c.last_error, c.last_status_code,
		c.created_at, c.updated_at, c.finished_at, lost.dead
)
SELECT d.id, d.event_id, d.destination, d.status, d.attempts, d.replay_count, d.ordering_key,
	d.next_attempt_at, d.lease_until, d.last_error, d.last_status_code,
	d.created_at, d.updated_at, d.finished_at, '' AS lease_token,
	e.id, e.source, e.provider_event_id, e.id_origin, e.type, e.body, e.content_type,
	e.headers, e.signature_slot, e.occurred_at, e.received_at, e.key_id
FROM d JOIN hookrelay.events e ON e.id = d.event_id
WHERE d.dead`

	// claimCandidates picks, locks and returns in order the ids and event
	// ids of up to $3 deliveries of destination $1 claimable at $2: due
	// ones from the due index, expired leases from the processing index, each in
	// (next_attempt_at, id) order and merged; expired leases only when $5
	// holds, which it does not when recordLost ran first and turned them
	// into due deliveries or dead ones. Rows other claimers hold
	// locked are skipped. For a row with an ordering key it also takes
	// the key's advisory lock, or drops the row when another claim holds
	// it. Its snapshot may be older than the latest claim of a key: the
	// caller re-checks with claimRows, in a later statement, once it
	// holds the key.
	claimCandidates = `WITH due AS MATERIALIZED (
	SELECT c.id, c.event_id, c.next_attempt_at, c.ordering_key FROM hookrelay.deliveries c
	WHERE c.destination = $1 AND c.status IN ('pending', 'failed') AND c.next_attempt_at <= $2
		AND ` + keyIsFree + `
	ORDER BY c.next_attempt_at, c.id
	LIMIT $3
	FOR UPDATE OF c SKIP LOCKED
), expired AS MATERIALIZED (
	SELECT c.id, c.event_id, c.next_attempt_at, c.ordering_key FROM hookrelay.deliveries c
	WHERE c.destination = $1 AND c.status = 'processing' AND c.lease_until <= $2 AND $5::boolean
		AND ` + keyIsFree + `
	ORDER BY c.next_attempt_at, c.id
	LIMIT $3
	FOR UPDATE OF c SKIP LOCKED
), picked AS MATERIALIZED (
	SELECT * FROM due UNION ALL SELECT * FROM expired
	ORDER BY next_attempt_at, id
	LIMIT $3
)
SELECT id, event_id FROM picked
WHERE CASE WHEN ordering_key = '' THEN true
	ELSE pg_try_advisory_xact_lock($4::integer, hashtext($1 || E'\n' || ordering_key)) END
ORDER BY next_attempt_at, id`

	// claimRows leases the deliveries $4, which claimCandidates picked
	// from destination $1, at time $2, with the lease tokens $5 (the
	// token of $4[i] is $5[i]), until $3, provided they are still
	// claimable in this statement's snapshot, and returns them with their
	// events. The rows are found by primary key alone, whatever the
	// planner's statistics say: the recheck of the status is a CASE, which
	// no partial index matches, and the destination is not compared, which
	// would scan the destination's whole history in the (event_id,
	// destination) index.
	//
	// The UPDATE joins nothing. A token is looked up by its position in
	// the arrays rather than by joining their unnest: the planner, which
	// expects one row here, rescanned the unnest for every delivery, and
	// a claim of 128 spent more time in that join than in its updates.
	// The events are joined to what the UPDATE returns rather than in it,
	// since every table an UPDATE joins is carried along whole, each
	// event's body copied once more, should a row need rechecking.
	claimRows = `WITH leased AS (
	UPDATE hookrelay.deliveries c SET
		status = 'processing', lease_token = ($5::text[])[array_position($4::bigint[], c.id)], lease_until = $3,
		attempts = c.attempts + 1, updated_at = $2
	WHERE c.id = ANY($4::bigint[])
		AND CASE c.status
			WHEN 'pending' THEN c.next_attempt_at <= $2
			WHEN 'failed' THEN c.next_attempt_at <= $2
			WHEN 'processing' THEN c.lease_until <= $2
			ELSE false
		END
		AND ` + keyIsFree + `
	RETURNING
		c.id, c.event_id, c.destination, c.status, c.attempts, c.replay_count, c.ordering_key,
		c.next_attempt_at, c.lease_until, c.last_error, c.last_status_code,
		c.created_at, c.updated_at, c.finished_at, c.lease_token
)
SELECT leased.*,
	e.id, e.source, e.provider_event_id, e.id_origin, e.type, e.body, e.content_type,
	e.headers, e.signature_slot, e.occurred_at, e.received_at, e.key_id
FROM leased JOIN hookrelay.events e ON e.id = leased.event_id`

	// completeDeliveries sets the outcomes of the deliveries $1, given as
	// parallel arrays, of those still processing under the lease tokens
	// $2, records on each when its attempt started and how long it took,
	// records the attempts of those not done in the order of the arrays,
	// each in its delivery's replay round (a done delivery's last attempt
	// is the one its row describes: migration 0028), and returns the ids
	// it recorded. A NULL next
	// attempt keeps next_attempt_at. Each id is listed once. The rows are
	// found by primary key alone, as in claimRows: the status is checked in
	// a CASE, which no partial index matches, so the planner cannot choose
	// to walk every processing delivery instead.
	//
	// A deferred delivery ($17; its event $15 and destination $16) whose
	// row no claim has written since is inserted whole, with its
	// outcome, as ingest would have written it and the update would have
	// left it (n); one whose event is gone or purged, or whose row was
	// written and then taken over, is not recorded. The rows $18 of
	// delivery_leases, batches whose deliveries are all settled, are
	// deleted (gone; see sqlstore.LeaseBook).
	completeDeliveries = completeInput + completeUpdate + completeInsert + ` AND NOT EXISTS (SELECT 1 FROM u WHERE u.id = i.id)` +
		completeInsertEnd + `), d AS (
	SELECT * FROM u UNION ALL SELECT * FROM n
` + completeTail

	// completeDeferred is completeDeliveries for a batch whose every
	// delivery is deferred and, its lease still running, has no row yet
	// (sqlstore.LeaseBook.Unwritten): it inserts them, and tries no
	// update. A row a sweep wrote meanwhile (a clock far ahead) makes
	// its delivery's outcome unrecorded, as a lease lost is.
	completeDeferred = completeInput + completeInsert + completeInsertEnd + `), d AS (
	SELECT * FROM n
` + completeTail

	// completeDone is completeDeferred for a batch whose every delivery
	// also ended done, which keeps no attempt row of its own (migration
	// 0028): a bare insert of the rows, from only the arrays it needs —
	// ids $1, events $2, destinations $3, and the attempt's error $4,
	// status code $5, failure kind $6, the outcome's time $7 (its finish),
	// the attempt's start $8 and its duration $9 — joined to their events
	// as completeInsert is, and the deletion of the rows $10 of
	// delivery_leases. It has no ON CONFLICT clause, whose speculative
	// insertion cost more than the rare conflict it would settle: a row a
	// sweep wrote meanwhile fails the whole statement with a
	// unique_violation, and CompleteDeliveries then writes the batch with
	// completeDeliveries. Together with the input's CTE, its ordering and
	// the attempts' part, this took about 5 µs off a delivery's 56 in
	// BenchmarkLeased.
	completeDone = `WITH gone AS (
	DELETE FROM hookrelay.delivery_leases WHERE id = ANY($10::bigint[])
)
INSERT INTO hookrelay.deliveries (
	id, event_id, destination, status, attempts, ordering_key, next_attempt_at, order_at,
	last_error, last_status_code, failure_kind, finished_at, last_attempted_at, last_duration_ms,
	created_at, updated_at
)
OVERRIDING SYSTEM VALUE
SELECT i.id, i.event_id, i.destination, 'done', 1, '', e.received_at, coalesce(e.occurred_at, e.received_at),
	i.error, i.status_code, i.kind, i.now, i.attempted_at, i.duration_ms, e.received_at, i.now
FROM unnest(
	$1::bigint[], $2::text[], $3::text[], $4::text[], $5::integer[], $6::text[],
	$7::timestamptz[], $8::timestamptz[], $9::bigint[]
) AS i(id, event_id, destination, error, status_code, kind, now, attempted_at, duration_ms)
JOIN hookrelay.events e ON e.id = i.event_id AND e.purged_at IS NULL
RETURNING id`

	// completeDoneHeld is completeDeliveries for a batch whose every
	// delivery has its row — a claim wrote it, or ingest did — and ended
	// done, the common outcome of a drain: the update alone, from only
	// the arrays it needs — ids $1, lease tokens $2, and the attempt's
	// error $3, status code $4, failure kind $5, the outcome's time $6
	// (its finish), the attempt's start $7 and its duration $8 — and the
	// deletion of the rows $9 of delivery_leases. Its rows are found as
	// completeUpdate finds them; a done delivery keeps its due time.
	completeDoneHeld = `WITH gone AS (
	DELETE FROM hookrelay.delivery_leases WHERE id = ANY($9::bigint[])
)
UPDATE hookrelay.deliveries SET
	status = 'done', last_error = i.error, last_status_code = i.status_code, failure_kind = i.kind,
	finished_at = i.now, last_attempted_at = i.attempted_at, last_duration_ms = i.duration_ms,
	lease_until = NULL, lease_token = NULL, updated_at = i.now
FROM unnest(
	$1::bigint[], $2::text[], $3::text[], $4::integer[], $5::text[], $6::timestamptz[], $7::timestamptz[], $8::bigint[]
) AS i(id, token, error, status_code, kind, now, attempted_at, duration_ms)
WHERE hookrelay.deliveries.id = ANY($1::bigint[]) AND hookrelay.deliveries.id = i.id
	AND CASE hookrelay.deliveries.status WHEN 'processing' THEN hookrelay.deliveries.lease_token = i.token ELSE false END
RETURNING hookrelay.deliveries.id`

	completeInput = `WITH input AS (
	SELECT * FROM unnest(
		$1::bigint[], $2::text[], $3::text[], $4::timestamptz[], $5::text[], $6::integer[],
		$7::timestamptz[], $8::timestamptz[], $9::timestamptz[], $10::bigint[], $11::bytea[], $12::text[],
		$13::bytea[], $14::text[], $15::text[], $16::text[], $17::boolean[]
	) WITH ORDINALITY AS i(
		id, token, status, next_attempt_at, error, status_code,
		finished_at, now, attempted_at, duration_ms, snippet, key_id, headers, kind, event_id, destination, deferred, n
	)
`

	completeUpdate = `), u AS (
	UPDATE hookrelay.deliveries SET
		status = i.status, next_attempt_at = coalesce(i.next_attempt_at, hookrelay.deliveries.next_attempt_at),
		last_error = i.error, last_status_code = i.status_code, failure_kind = i.kind, finished_at = i.finished_at,
		last_attempted_at = i.attempted_at, last_duration_ms = i.duration_ms,
		lease_until = NULL, lease_token = NULL, updated_at = i.now
	FROM input i
	WHERE hookrelay.deliveries.id = ANY($1::bigint[]) AND hookrelay.deliveries.id = i.id
		AND CASE hookrelay.deliveries.status WHEN 'processing' THEN hookrelay.deliveries.lease_token = i.token ELSE false END
	RETURNING hookrelay.deliveries.id, hookrelay.deliveries.event_id, hookrelay.deliveries.replay_count
`

	completeInsert = `), n AS (
	INSERT INTO hookrelay.deliveries (
		id, event_id, destination, status, attempts, ordering_key, next_attempt_at, order_at,
		last_error, last_status_code, failure_kind, finished_at, last_attempted_at, last_duration_ms,
		created_at, updated_at
	)
	OVERRIDING SYSTEM VALUE
	SELECT i.id, i.event_id, i.destination, i.status, 1, '', coalesce(i.next_attempt_at, e.received_at),
		coalesce(e.occurred_at, e.received_at), i.error, i.status_code, i.kind, i.finished_at, i.attempted_at,
		i.duration_ms, e.received_at, i.now
	FROM input i JOIN hookrelay.events e ON e.id = i.event_id AND e.purged_at IS NULL
	WHERE i.deferred`

	completeInsertEnd = `
	ORDER BY i.n
	ON CONFLICT DO NOTHING
	RETURNING id, event_id, replay_count
`

	completeTail = `), a AS (
	INSERT INTO hookrelay.attempts (delivery_id, event_id, attempted_at, duration_ms, status_code, error, response_snippet, key_id, headers, round)
	SELECT i.id, d.event_id, i.attempted_at, i.duration_ms, i.status_code, i.error, i.snippet, i.key_id, i.headers, d.replay_count
	FROM input i JOIN d ON d.id = i.id
	WHERE i.status <> 'done'
	ORDER BY i.n
), gone AS (
	DELETE FROM hookrelay.delivery_leases WHERE id = ANY($18::bigint[])
)
SELECT id FROM d`

	// releaseDeliveries hands back the deliveries $1 still held under the
	// lease tokens $2, due by $3 at the latest, without the attempt their
	// claim counted.
	releaseDeliveries = `UPDATE hookrelay.deliveries c SET
	status = CASE WHEN c.attempts <= 1 THEN 'pending' ELSE 'failed' END,
	attempts = greatest(c.attempts - 1, 0),
	next_attempt_at = least(c.next_attempt_at, $3),
	lease_until = NULL, lease_token = NULL, updated_at = $3
FROM unnest($1::bigint[], $2::text[]) AS r(id, token)
WHERE c.id = r.id AND c.status = 'processing' AND c.lease_token = r.token`

	// nextDue is the earliest due time or lease end of destination $1's
	// live deliveries, or of a batch of deferred deliveries, or NULL.
	nextDue = `SELECT least(
	(SELECT min(next_attempt_at) FROM hookrelay.deliveries WHERE destination = $1 AND status IN ('pending', 'failed')),
	(SELECT min(lease_until) FROM hookrelay.deliveries WHERE destination = $1 AND status = 'processing'),
	(SELECT min(lease_until) FROM hookrelay.delivery_leases)
)`
)

// The tables and functions earlier versions created unqualified, which
// Migrate moves into the store's schema (see moveLegacy).
const (
	// selectLegacySchema returns the schema the connection's search_path
	// finds hookrelay's schema_migrations and deliveries in, when it is
	// not $1 and $1 has no schema_migrations.
	selectLegacySchema = `SELECT n.nspname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE c.oid = to_regclass('deliveries')
	AND c.relnamespace = (SELECT relnamespace FROM pg_class WHERE oid = to_regclass('schema_migrations'))
	AND EXISTS (SELECT 1 FROM pg_attribute WHERE attrelid = c.oid AND attname = 'lease_token')
	AND n.nspname <> $1
	AND to_regclass('hookrelay.schema_migrations') IS NULL`

	// selectLegacyFunctions returns, as ALTER FUNCTION takes them, the
	// functions of schema $1 named in $2.
	selectLegacyFunctions = `SELECT p.oid::regprocedure::text FROM pg_proc p
WHERE p.pronamespace = (SELECT oid FROM pg_namespace WHERE nspname = $1) AND p.proname = ANY($2::text[])`
)

// legacyFunctions are the trigger functions the migrations create.
var legacyFunctions = []string{
	"delivery_counts_insert", "delivery_counts_update", "delivery_counts_delete", "delete_referencing",
	"activity_received", "activity_attempted", "activity_delivered", "activity_delivered_inserted",
}
