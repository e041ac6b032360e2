package postgres

import (
	"context"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/hookrelay/hookrelay/internal/store"
	"github.com/hookrelay/hookrelay/internal/store/sqlstore"
)

const (
	// selectDeliveryEvents returns the event ids of the deliveries $1.
	selectDeliveryEvents = `SELECT id, event_id FROM hookrelay.deliveries WHERE id = ANY($1::bigint[])`

	// insertImportedKeys writes the dedupe keys of the events $1 into a
	// partitioned event log's event_keys.
	insertImportedKeys = `INSERT INTO hookrelay.event_keys (source, provider_event_id, event_id)
SELECT source, provider_event_id, id FROM hookrelay.events WHERE id = ANY($1::text[])`
)

// ImportRows inserts exported rows, ids included, in one transaction,
// with COPY in place of the INSERTs of sqlstore.Ops.ImportRows: it takes
// any number of rows in one round trip, and writes the ids of identity
// columns as given. What a copy does not carry it derives: the event id
// of each attempt, from its delivery (imported before it), and, on a
// partitioned event log, the events' dedupe keys.
func (s *Store) ImportRows(ctx context.Context, rows store.TableRows) error {
	release, err := s.enter()
	if err != nil {
		return fmt.Errorf("import rows: %w", err)
	}
	defer release()
	t, vals, err := sqlstore.ImportValues(rows)
	if err != nil {
		return err
	}
	columns := t.ColumnNames()
	err = pgx.BeginFunc(ctx, s.other, func(tx pgx.Tx) error {
		if t.Name == "attempts" {
			if vals, err = s.withEventIDs(ctx, tx, slices.Index(columns, "delivery_id"), vals); err != nil {
				return err
			}
			columns = append(columns, "event_id")
		}
		if _, err := tx.CopyFrom(ctx, pgx.Identifier{s.tables.Schema(), t.Name}, columns, pgx.CopyFromRows(vals)); err != nil {
			return err
		}
		if t.Name != "events" || !s.partitioned.Load() {
			return nil
		}
		at := slices.Index(columns, "id")
		ids := make([]string, len(vals))
		for i, row := range vals {
			ids[i] = row[at].(string)
		}
		_, err := tx.Exec(ctx, s.sql.SQL(insertImportedKeys), ids)
		return err
	})
	if err != nil {
		return fmt.Errorf("import %s: %w", t.Name, s.mapErr(ctx, err))
	}
	return nil
}

// withEventIDs returns the rows of attempts vals, whose delivery ids
// are their values at column at, each with the event id of its delivery
// appended, read in tx.
func (s *Store) withEventIDs(ctx context.Context, tx pgx.Tx, at int, vals [][]any) ([][]any, error) {
	ids := make([]int64, len(vals))
	for i, row := range vals {
		ids[i] = row[at].(int64)
	}
	rows, err := tx.Query(ctx, s.sql.SQL(selectDeliveryEvents), ids)
	events, err := collectMap[int64, string](rows, err)
	if err != nil {
		return nil, err
	}
	out := make([][]any, len(vals))
	for i, row := range vals {
		event, ok := events[ids[i]]
		if !ok {
			return nil, fmt.Errorf("attempt %v: its delivery %d is not imported", row[0], ids[i])
		}
		out[i] = append(row[:len(row):len(row)], event)
	}
	return out, nil
}

// TableCounts returns how many rows each table a copy moves holds, as the
// operations written once for both drivers count them (sqlstore.Ops), once
// the rows of every deferred delivery not yet swept are written
// (store.Lease.Deferred): a copy's source is a stopped relay, whose
// deliveries leased at ingest and not finished have rows only once
// written, leased as ingest leased them, to be claimed again on the
// target once the lease has run out, as after a crash.
func (s *Store) TableCounts(ctx context.Context) (map[string]int64, error) {
	release, err := s.enter()
	if err != nil {
		return nil, fmt.Errorf("count tables: %w", err)
	}
	_, err = s.other.Exec(ctx, s.sql.SQL(sweepLeases), time.Date(9999, 12, 31, 0, 0, 0, 0, time.UTC), math.MaxInt32, time.Now())
	release()
	if err != nil {
		return nil, fmt.Errorf("count tables: write deferred deliveries: %w", s.mapErr(ctx, err))
	}
	return s.Ops.TableCounts(ctx)
}
