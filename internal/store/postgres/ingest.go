package postgres

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/hookrelay/hookrelay/internal/store"
	"github.com/hookrelay/hookrelay/internal/store/sqlstore"
)

// Ingest stores the batch on the ingest pool in one round trip: one
// statement that inserts every event and its deliveries, then, when the
// batch has pending deliveries, one that notifies the processes that
// Listen, once per destination of those (a delivery leased at ingest is
// its leaseholder's, and wakes no one); a single Sync ends them, which PostgreSQL runs as one
// implicit transaction, committed (durably: synchronous_commit is on in
// that pool) or rolled back as a whole, and notifications go out only on
// commit.
//
// Events are inserted in (source, provider id) order, so that concurrent
// batches that share provider ids take their unique-index locks in the same
// order and cannot deadlock; a duplicate within the batch keeps its place
// after the first, and so is the duplicate. The signature digests are
// claimed in the same statement, before the events (see ingestBatch).
func (s *Store) Ingest(ctx context.Context, items []store.IngestItem) ([]store.IngestOutcome, error) {
	release, err := s.enter()
	if err != nil {
		return nil, fmt.Errorf("ingest: %w", err)
	}
	defer release()
	if len(items) == 0 {
		return []store.IngestOutcome{}, nil
	}
	items, err = store.Storable(items)
	if err != nil {
		return nil, fmt.Errorf("ingest: %w", err)
	}
	order := make([]int, len(items))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		ea, eb := &items[a].Event, &items[b].Event
		return cmp.Or(cmp.Compare(ea.Source, eb.Source), cmp.Compare(ea.ProviderEventID, eb.ProviderEventID))
	})
	args, leased, err := batchArgs(items, order, s.payloads)
	if err != nil {
		return nil, fmt.Errorf("ingest: %w", err)
	}
	outcomes, err := s.ingest1(ctx, items, args, leased)
	if isLayoutChanged(err) && s.readLayout(ctx) == nil {
		// The event log was partitioned since this store read its
		// layout (see EnablePartitions): the batch rolled back whole.
		outcomes, err = s.ingest1(ctx, items, args, leased)
	}
	return outcomes, err
}

// ingest1 sends ingestBatch, in the layout the store knows, with args,
// and the notifications of items' destinations, in one implicit
// transaction.
func (s *Store) ingest1(ctx context.Context, items []store.IngestItem, args []any, leased *sqlstore.LeasedRows) ([]store.IngestOutcome, error) {
	statement := ingestBatch
	if s.partitioned.Load() {
		statement = ingestBatchKeyed
	}
	// The statement joins the deliveries' arrays to the events it
	// inserted: planned for the few rows a generic plan assumes, as a
	// nested loop that unnests the arrays again for every event, a batch
	// of 64 events with 4 deliveries each cost the server a third more
	// per delivery than with hash joins (BenchmarkLeased at 64 a batch).
	settings := []string{hashJoins}
	if s.shared {
		// The pool is the application's, whose sessions may not wait for
		// the flush: this transaction does (see OpenPool).
		settings = append(settings, syncCommit)
	}
	batch := &pgx.Batch{}
	for _, st := range settings {
		batch.Queue(st)
	}
	batch.Queue(s.sql.SQL(statement), args...)
	dests := destinations(items)
	if len(dests) > 0 {
		batch.Queue(notifyDestinations, dests)
	}
	br := s.ingest.SendBatch(ctx, batch)
	for range settings {
		if _, err := br.Exec(); err != nil {
			br.Close()
			return nil, fmt.Errorf("ingest: %w", s.mapErr(ctx, err))
		}
	}
	outcomes, err := readOutcomes(br, items, leased)
	if err != nil {
		br.Close()
		return nil, fmt.Errorf("ingest: %w", s.mapErr(ctx, err))
	}
	if len(dests) > 0 {
		if _, err := br.Exec(); err != nil {
			br.Close()
			return nil, fmt.Errorf("ingest: notify: %w", s.mapErr(ctx, err))
		}
	}
	// Close reads the outcome of the Sync, that is of the commit.
	if err := br.Close(); err != nil {
		return nil, fmt.Errorf("ingest: commit: %w", s.mapErr(ctx, err))
	}
	leased.Settle()
	s.leases.Add(leased.DeferredLeases())
	return outcomes, nil
}

// readOutcomes reads the rows ingestBatch returns: it tells each item's
// outcome, and notes the leased deliveries created. An item no row names
// is a duplicate.
func readOutcomes(br pgx.BatchResults, items []store.IngestItem, leased *sqlstore.LeasedRows) ([]store.IngestOutcome, error) {
	at := make(map[string]int, len(items))
	for i := range items {
		at[items[i].Event.ID] = i
	}
	rows, err := br.Query()
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	outcomes := make([]store.IngestOutcome, len(items))
	for i := range outcomes {
		outcomes[i] = store.IngestDuplicate
	}
	for rows.Next() {
		var (
			id, kind    string
			destination *string
			deliveryID  *int64
		)
		if err := rows.Scan(&id, &destination, &deliveryID, &kind); err != nil {
			return nil, err
		}
		switch kind {
		case "leased":
			leased.Created(id, *destination, *deliveryID)
		case "deferred":
			leased.Deferred(id, *destination, *deliveryID)
		case "stored":
			outcomes[at[id]] = store.IngestStored
		case "replayed":
			outcomes[at[id]] = store.IngestReplayedSignature
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	storedEarlier(items, outcomes)
	return outcomes, nil
}

// storedEarlier turns into a duplicate each replayed signature whose own
// (source, provider id) an item of the same batch stored: the statement's
// snapshot, which ingestBatch asks, does not hold the events the
// statement inserts.
func storedEarlier(items []store.IngestItem, outcomes []store.IngestOutcome) {
	if !slices.Contains(outcomes, store.IngestReplayedSignature) {
		return
	}
	stored := make(map[[2]string]bool)
	for i, o := range outcomes {
		if o == store.IngestStored {
			stored[[2]string{items[i].Event.Source, items[i].Event.ProviderEventID}] = true
		}
	}
	for i, o := range outcomes {
		if o == store.IngestReplayedSignature && stored[[2]string{items[i].Event.Source, items[i].Event.ProviderEventID}] {
			outcomes[i] = store.IngestDuplicate
		}
	}
}

// destinations returns the distinct destinations of the items' pending
// deliveries, in order.
func destinations(items []store.IngestItem) []string {
	var dests []string
	for _, it := range items {
		for _, d := range it.Deliveries {
			if d.Lease == nil && !slices.Contains(dests, d.Destination) {
				dests = append(dests, d.Destination)
			}
		}
	}
	return dests
}

// batchArgs returns the arguments of ingestBatch for items, taken in
// order, their payloads sealed with p, and the leased deliveries to match
// with the rows it returns.
func batchArgs(items []store.IngestItem, order []int, p sqlstore.Payloads) ([]any, *sqlstore.LeasedRows, error) {
	n := len(items)
	var (
		ids, sources, providerIDs, origins = make([]string, n), make([]string, n), make([]string, n), make([]string, n)
		types, contentTypes, headers       = make([]string, n), make([]string, n), make([]string, n)
		queries                            = make([]string, n)
		bodies, digests                    = make([][]byte, n), make([][]byte, n)
		keyIDs                             = make([]*string, n)
		slots                              = make([]int32, n)
		occurred, received                 = make([]pgtype.Timestamptz, n), make([]pgtype.Timestamptz, n)
		dEvents, dDests, dKeys, dTokens    []string
		dUntil                             []pgtype.Timestamptz
		leased                             = &sqlstore.LeasedRows{}
	)
	for j, i := range order {
		e := &items[i].Event
		sealed, err := p.SealEvent(*e)
		if err != nil {
			return nil, nil, fmt.Errorf("event %s: %w", e.ID, err)
		}
		ids[j], sources[j], providerIDs[j], origins[j] = e.ID, e.Source, e.ProviderEventID, string(e.IDOrigin)
		types[j], contentTypes[j], headers[j] = e.Type, e.ContentType, sealed.Headers
		bodies[j], keyIDs[j], queries[j] = sealed.Body, sealed.KeyID, sealed.Query
		digests[j] = items[i].SignatureDigest // nil is NULL
		slots[j] = int32(e.SignatureSlot)
		occurred[j] = pgtype.Timestamptz{Time: e.OccurredAt, Valid: !e.OccurredAt.IsZero()}
		received[j] = pgtype.Timestamptz{Time: e.ReceivedAt, Valid: true}
		for _, d := range items[i].Deliveries {
			dEvents = append(dEvents, e.ID)
			dDests = append(dDests, d.Destination)
			dKeys = append(dKeys, d.OrderingKey)
			token, until := "", pgtype.Timestamptz{}
			if d.Lease != nil {
				leased.Want(e.ID, d)
				token, until = d.Lease.Token, pgtype.Timestamptz{Time: d.Lease.Until, Valid: true}
			}
			dTokens = append(dTokens, token)
			dUntil = append(dUntil, until)
		}
	}
	return []any{
		ids, sources, providerIDs, origins, types, bodies, contentTypes,
		headers, slots, occurred, received,
		sqlstore.NonNil(dEvents), sqlstore.NonNil(dDests), sqlstore.NonNil(dKeys), keyIDs, digests, queries,
		sqlstore.NonNil(dTokens), sqlstore.NonNil(dUntil), store.ReplayWindow.Microseconds(),
	}, leased, nil
}
