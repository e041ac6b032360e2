package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
	"github.com/hookrelay/hookrelay/internal/store/sqlstore"
)

// Ingest stores the batch in one immediate transaction on the writer
// connection, then waits until an fsync of the WAL has made its commit
// durable; by then the writer is already serving the next batch.
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
	outcomes, err := s.ingest(ctx, items)
	if err != nil {
		return nil, fmt.Errorf("ingest: %w", mapErr(ctx, err))
	}
	return outcomes, nil
}

func (s *Store) ingest(ctx context.Context, items []store.IngestItem) ([]store.IngestOutcome, error) {
	if err := s.prepareMultiRows(ctx, &s.insertEvents, &s.insertDeliveries, &s.insertLeased, &s.claimDigests); err != nil {
		return nil, err
	}
	signed := slices.ContainsFunc(items, func(it store.IngestItem) bool { return it.SignatureDigest != nil })
	var stmts *writeStmts
	if signed || slices.ContainsFunc(items, deferring) {
		var err error
		if stmts, err = s.prepared(ctx); err != nil {
			return nil, err
		}
	}
	// Encode before taking the writer, so that this work overlaps another
	// batch's transaction.
	sealed := make([]sqlstore.SealedEvent, len(items))
	for i, it := range items {
		var err error
		if sealed[i], err = s.payloads.SealEvent(it.Event); err != nil {
			return nil, fmt.Errorf("insert event %s: %w", it.Event.ID, err)
		}
	}
	tx, err := s.writer.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	outcomes := make([]store.IngestOutcome, len(items))
	if signed {
		if err := s.claimDigestRows(ctx, tx, items, outcomes); err != nil {
			return nil, err
		}
	}
	if err := s.insertEventRows(ctx, tx, items, sealed, outcomes); err != nil {
		return nil, err
	}
	if signed {
		if err := settleReplayed(ctx, tx, stmts.eventStored, items, outcomes); err != nil {
			return nil, err
		}
	}
	leased, err := s.insertDeliveryRows(ctx, tx, items, outcomes)
	if err != nil {
		return nil, err
	}
	if err := s.deferDeliveries(ctx, tx, stmts, items, outcomes, &leased); err != nil {
		return nil, err
	}
	if err := tx.Commit(); err != nil {
		return nil, fmt.Errorf("commit: %w", err)
	}
	if err := s.wal.waitDurable(s.wal.committedOne()); err != nil {
		return nil, err
	}
	leased.Settle()
	s.leases.Add(leased.DeferredLeases())
	return outcomes, nil
}

// claimDigestRows claims the items' signature digests for their provider
// ids (claimDigests*), each for the first item of the batch that carries
// it, and marks IngestReplayedSignature each item whose digest another
// provider id holds: those are not inserted. The writer is SQLite's only
// one, so what the statements read is what the transaction commits.
func (s *Store) claimDigestRows(ctx context.Context, tx *sql.Tx, items []store.IngestItem, outcomes []store.IngestOutcome) error {
	key := func(it store.IngestItem) string { return it.Event.Source + "\x00" + string(it.SignatureDigest) }
	var (
		args    []any
		claimed = make(map[string]bool)   // digest keys claimed by an earlier item
		holders = make(map[string]string) // digest key → the provider id it was returned for
	)
	for _, it := range items {
		if it.SignatureDigest == nil || claimed[key(it)] {
			continue
		}
		claimed[key(it)] = true
		args = append(args, it.Event.Source, it.SignatureDigest, it.Event.ProviderEventID, micros(it.Event.ReceivedAt))
	}
	err := s.queryChunks(ctx, tx, &s.claimDigests, 4, args, func(rows *sql.Rows) error {
		var (
			source, providerID string
			digest             []byte
		)
		if err := rows.Scan(&source, &digest, &providerID); err != nil {
			return err
		}
		holders[source+"\x00"+string(digest)] = providerID
		return nil
	})
	if err != nil {
		return fmt.Errorf("claim signature digests: %w", err)
	}
	for i, it := range items {
		if it.SignatureDigest == nil {
			continue
		}
		if holder, ok := holders[key(it)]; !ok || holder != it.Event.ProviderEventID {
			outcomes[i] = store.IngestReplayedSignature
		}
	}
	return nil
}

// settleReplayed turns into a duplicate each replayed signature whose own
// (source, provider id) is stored, by an earlier transaction or earlier in
// this one: a provider's retry is a duplicate whatever digest it carries.
func settleReplayed(ctx context.Context, tx *sql.Tx, eventStored *sql.Stmt, items []store.IngestItem, outcomes []store.IngestOutcome) error {
	if !slices.Contains(outcomes, store.IngestReplayedSignature) {
		return nil
	}
	stored := tx.StmtContext(ctx, eventStored)
	for i, it := range items {
		if outcomes[i] != store.IngestReplayedSignature {
			continue
		}
		var dup bool
		if err := stored.QueryRowContext(ctx, it.Event.Source, it.Event.ProviderEventID).Scan(&dup); err != nil {
			return fmt.Errorf("look up event %s: %w", it.Event.ID, err)
		}
		if dup {
			outcomes[i] = store.IngestDuplicate
		}
	}
	return nil
}

// insertEventRows inserts with multi-row statements the events of the
// items whose outcome is not decided yet, and sets it: IngestStored, or
// IngestDuplicate when the event was already stored.
func (s *Store) insertEventRows(ctx context.Context, tx *sql.Tx, items []store.IngestItem, sealed []sqlstore.SealedEvent, outcomes []store.IngestOutcome) error {
	at := make(map[string]int, len(items))
	pending := make([]int, 0, len(items))
	for i, it := range items {
		if outcomes[i] == 0 { // not decided by claimDigestRows
			at[it.Event.ID] = i
			pending = append(pending, i)
			outcomes[i] = store.IngestDuplicate
		}
	}
	args := make([]any, 0, maxRowsPerStatement*14)
	for start := 0; start < len(pending); {
		n := chunkRows(len(pending) - start)
		args = args[:0]
		for _, i := range pending[start : start+n] {
			e := items[i].Event
			var digest any // NULL, not an empty blob
			if items[i].SignatureDigest != nil {
				digest = items[i].SignatureDigest
			}
			args = append(args, e.ID, e.Source, e.ProviderEventID, string(e.IDOrigin), e.Type, sealed[i].Body,
				e.ContentType, sealed[i].Headers, e.SignatureSlot, nullMicros(e.OccurredAt), micros(e.ReceivedAt), sealed[i].KeyID, digest,
				sealed[i].Query)
		}
		stmt := s.multiRowStmt(ctx, tx, &s.insertEvents, n)
		if err := markStored(ctx, stmt, args, at, outcomes); err != nil {
			return fmt.Errorf("insert events: %w", err)
		}
		start += n
	}
	return nil
}

// markStored runs one multi-row event insert and marks the ids it returns
// stored.
func markStored(ctx context.Context, stmt *sql.Stmt, args []any, at map[string]int, outcomes []store.IngestOutcome) error {
	rows, err := stmt.QueryContext(ctx, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return err
		}
		outcomes[at[id]] = store.IngestStored
	}
	return rows.Err()
}

// insertDeliveryRows creates the deliveries of the items whose event was
// inserted, with multi-row statements: the pending ones with one, the
// leased ones with an ordering key with another that returns their ids.
// It notes every leased one in the LeasedRows it returns; those without
// a key are deferred (deferDeliveries).
func (s *Store) insertDeliveryRows(ctx context.Context, tx *sql.Tx, items []store.IngestItem, outcomes []store.IngestOutcome) (sqlstore.LeasedRows, error) {
	now := micros(time.Now())
	var (
		pending, leasedArgs []any
		leased              sqlstore.LeasedRows
	)
	for i, it := range items {
		if outcomes[i] != store.IngestStored {
			continue
		}
		e := it.Event
		due, orderAt := micros(e.ReceivedAt), micros(e.ReceivedAt)
		if !e.OccurredAt.IsZero() {
			orderAt = micros(e.OccurredAt)
		}
		for _, d := range it.Deliveries {
			if d.Lease == nil {
				pending = append(pending, e.ID, d.Destination, d.OrderingKey, due, orderAt, now, now)
				continue
			}
			leased.Want(e.ID, d)
			if defersRow(d) {
				continue // see deferDeliveries
			}
			leasedArgs = append(leasedArgs, e.ID, d.Destination, d.OrderingKey, due, orderAt,
				micros(d.Lease.Until), d.Lease.Token, now, now)
		}
	}
	if err := s.execChunks(ctx, tx, &s.insertDeliveries, 7, pending); err != nil {
		return leased, fmt.Errorf("insert deliveries: %w", err)
	}
	err := s.queryChunks(ctx, tx, &s.insertLeased, 9, leasedArgs, func(rows *sql.Rows) error {
		var (
			id                 int64
			event, destination string
		)
		if err := rows.Scan(&id, &event, &destination); err != nil {
			return err
		}
		leased.Created(event, destination, id)
		return nil
	})
	if err != nil {
		return leased, fmt.Errorf("insert leased deliveries: %w", err)
	}
	return leased, nil
}
