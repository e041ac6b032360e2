package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
	"github.com/hookrelay/hookrelay/internal/store/sqlstore"
)

// Ingest stores the batch in one immediate transaction on the writer
// connection, then waits until an fsync of the WAL has made its commit
// durable; by then the writer is already serving the next batch.
func (s *Store) Ingest(ctx context.Context, items []store.IngestItem) ([]bool, error) {
	release, err := s.enter()
	if err != nil {
		return nil, fmt.Errorf("ingest: %w", err)
	}
	defer release()
	if len(items) == 0 {
		return []bool{}, nil
	}
	items, err = store.Storable(items)
	if err != nil {
		return nil, fmt.Errorf("ingest: %w", err)
	}
	inserted, err := s.ingest(ctx, items)
	if err != nil {
		return nil, fmt.Errorf("ingest: %w", mapErr(ctx, err))
	}
	return inserted, nil
}

func (s *Store) ingest(ctx context.Context, items []store.IngestItem) ([]bool, error) {
	if err := s.prepareMultiRows(ctx, &s.insertEvents, &s.insertDeliveries, &s.insertLeased); err != nil {
		return nil, err
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
	inserted, err := s.insertEventRows(ctx, tx, items, sealed)
	if err != nil {
		return nil, err
	}
	leased, err := s.insertDeliveryRows(ctx, tx, items, inserted)
	if err != nil {
		return nil, err
	}
	if err := tx.Commit(); err != nil {
		return nil, fmt.Errorf("commit: %w", err)
	}
	if err := s.wal.waitDurable(s.wal.committedOne()); err != nil {
		return nil, err
	}
	leased.Settle()
	return inserted, nil
}

// insertEventRows inserts the events of items with multi-row statements and
// tells, for each item, whether its event was inserted (false: a duplicate).
func (s *Store) insertEventRows(ctx context.Context, tx *sql.Tx, items []store.IngestItem, sealed []sqlstore.SealedEvent) ([]bool, error) {
	inserted := make([]bool, len(items))
	at := make(map[string]int, len(items))
	for i, it := range items {
		at[it.Event.ID] = i
	}
	args := make([]any, 0, maxRowsPerStatement*14)
	for start := 0; start < len(items); {
		n := chunkRows(len(items) - start)
		args = args[:0]
		for i := start; i < start+n; i++ {
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
		if err := markInserted(ctx, stmt, args, at, inserted); err != nil {
			return nil, fmt.Errorf("insert events: %w", err)
		}
		start += n
	}
	return inserted, nil
}

// markInserted runs one multi-row event insert and marks the ids it returns.
func markInserted(ctx context.Context, stmt *sql.Stmt, args []any, at map[string]int, inserted []bool) error {
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
		inserted[at[id]] = true
	}
	return rows.Err()
}

// insertDeliveryRows creates the deliveries of the items whose event was
// inserted, with multi-row statements: the pending ones with one, the
// leased ones with another that returns their ids.
func (s *Store) insertDeliveryRows(ctx context.Context, tx *sql.Tx, items []store.IngestItem, inserted []bool) (sqlstore.LeasedRows, error) {
	now := micros(time.Now())
	var (
		pending, leasedArgs []any
		leased              sqlstore.LeasedRows
	)
	for i, it := range items {
		if !inserted[i] {
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
