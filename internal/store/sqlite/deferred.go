package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
	"github.com/hookrelay/hookrelay/internal/store/sqlstore"
)

// defersRow reports whether ingest defers d's row (store.Lease.Deferred):
// it is leased at ingest and has no ordering key.
func defersRow(d store.NewDelivery) bool { return d.Lease != nil && d.OrderingKey == "" }

// deferring reports whether it has a delivery whose row ingest defers.
func deferring(it store.IngestItem) bool { return slices.ContainsFunc(it.Deliveries, defersRow) }

// deferredLease is one deferred delivery as delivery_leases keeps it: a
// JSON array of its id, event id, destination, lease token and lease end
// in microseconds.
type deferredLease [5]any

// deferDeliveries reserves the ids of the deferred deliveries of the
// items whose event was inserted (a destination listed twice for one
// event is one delivery, its first), writes their leases in one row of
// delivery_leases, and notes them in leased, in tx.
func (s *Store) deferDeliveries(ctx context.Context, tx *sql.Tx, st *writeStmts, items []store.IngestItem, outcomes []store.IngestOutcome, leased *sqlstore.LeasedRows) error {
	type delivery struct {
		event string
		d     store.NewDelivery
	}
	var (
		ds       []delivery
		seen     = map[[2]string]bool{}
		received time.Time
	)
	for i, it := range items {
		if outcomes[i] != store.IngestStored {
			continue
		}
		for _, d := range it.Deliveries {
			k := [2]string{it.Event.ID, d.Destination}
			if !defersRow(d) || seen[k] {
				continue
			}
			seen[k] = true
			ds = append(ds, delivery{it.Event.ID, d})
			if received.IsZero() || it.Event.ReceivedAt.Before(received) {
				received = it.Event.ReceivedAt
			}
		}
	}
	if len(ds) == 0 {
		return nil
	}
	last, err := reserveIDs(ctx, tx, st, len(ds))
	if err != nil {
		return err
	}
	first := last - int64(len(ds)) + 1
	leases := make([]deferredLease, len(ds))
	until := ds[0].d.Lease.Until
	for i, x := range ds {
		id := first + int64(i)
		leases[i] = deferredLease{id, x.event, x.d.Destination, x.d.Lease.Token, micros(x.d.Lease.Until)}
		if x.d.Lease.Until.Before(until) {
			until = x.d.Lease.Until
		}
		leased.Deferred(x.event, x.d.Destination, id)
	}
	list, err := json.Marshal(leases)
	if err != nil {
		return fmt.Errorf("defer deliveries: %w", err)
	}
	if _, err := tx.StmtContext(ctx, st.insertDeliveryLease).ExecContext(ctx, first, micros(until), micros(received), string(list)); err != nil {
		return fmt.Errorf("defer deliveries: %w", err)
	}
	return nil
}

// reserveIDs moves the deliveries' id sequence n ids on, in tx, and
// returns the last id reserved.
func reserveIDs(ctx context.Context, tx *sql.Tx, st *writeStmts, n int) (int64, error) {
	for range 2 {
		var last int64
		switch err := tx.StmtContext(ctx, st.reserveDeliveryIDs).QueryRowContext(ctx, n).Scan(&last); err {
		case nil:
			return last, nil
		case sql.ErrNoRows: // the table's first insert is yet to come
			if _, err := tx.StmtContext(ctx, st.seedDeliveryIDs).ExecContext(ctx); err != nil {
				return 0, fmt.Errorf("reserve delivery ids: %w", err)
			}
		default:
			return 0, fmt.Errorf("reserve delivery ids: %w", err)
		}
	}
	return 0, fmt.Errorf("reserve delivery ids: the sequence has no row")
}

// deferredList returns the deferred deliveries d as delivery_leases keeps
// them, a JSON array.
func deferredList(d sqlstore.Deferred) string {
	leases := make([]deferredLease, len(d.IDs))
	for i, id := range d.IDs {
		leases[i] = deferredLease{id, d.Events[i], d.Destinations[i], d.Tokens[i], micros(d.Until[i])}
	}
	b, _ := json.Marshal(leases) // ints and strings: never fails
	return string(b)
}

// writeDeferredRows writes, updated at now, the rows still missing of the
// deferred deliveries of the JSON array list (writeDeferred), in tx.
func writeDeferredRows(ctx context.Context, tx *sql.Tx, st *writeStmts, list string, now time.Time) error {
	if _, err := tx.StmtContext(ctx, st.writeDeferred).ExecContext(ctx, list, micros(now)); err != nil {
		return fmt.Errorf("write deferred deliveries: %w", err)
	}
	return nil
}

// deleteLeases deletes the rows ids of delivery_leases, in tx.
func deleteLeases(ctx context.Context, tx *sql.Tx, st *writeStmts, ids []int64) error {
	if len(ids) == 0 {
		return nil
	}
	list, _ := json.Marshal(ids) // ints: never fails
	if _, err := tx.StmtContext(ctx, st.deleteDeliveryLeases).ExecContext(ctx, string(list)); err != nil {
		return fmt.Errorf("delete settled leases: %w", err)
	}
	return nil
}

// sweepLeases deletes up to limit batches of delivery_leases whose
// earliest lease ran out by ended, and writes their deliveries' rows still
// missing (writeDeferred) updated at now, in tx, so that claims take them
// over as any claimed row whose lease ran out. It reports whether it
// swept any.
func sweepLeases(ctx context.Context, tx *sql.Tx, st *writeStmts, ended, now time.Time, limit int) (bool, error) {
	rows, err := tx.StmtContext(ctx, st.selectEndedLeases).QueryContext(ctx, micros(ended), limit)
	if err != nil {
		return false, fmt.Errorf("sweep leases: %w", err)
	}
	var (
		ids   []int64
		lists []string
	)
	for rows.Next() {
		var (
			id   int64
			list string
		)
		if err := rows.Scan(&id, &list); err != nil {
			rows.Close()
			return false, fmt.Errorf("sweep leases: %w", err)
		}
		ids, lists = append(ids, id), append(lists, list)
	}
	if err := rows.Close(); err != nil {
		return false, fmt.Errorf("sweep leases: %w", err)
	}
	if err := rows.Err(); err != nil {
		return false, fmt.Errorf("sweep leases: %w", err)
	}
	for _, list := range lists {
		if err := writeDeferredRows(ctx, tx, st, list, now); err != nil {
			return false, err
		}
	}
	return len(ids) > 0, deleteLeases(ctx, tx, st, ids)
}

// inWriteTx runs fn in a transaction on the writer with its prepared
// statements, and commits when fn succeeds.
func (s *Store) inWriteTx(ctx context.Context, fn func(*sql.Tx, *writeStmts) error) error {
	st, err := s.prepared(ctx)
	if err != nil {
		return err
	}
	tx, err := s.writer.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := fn(tx, st); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	return nil
}
