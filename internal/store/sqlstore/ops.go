package sqlstore

import (
	"context"
	"fmt"
)

// Backend is what a driver gives the operations written once: its
// connections, how it guards a call against Close, how it maps its errors,
// and its Dialect.
type Backend struct {
	// Read runs the statements that only read.
	Read Conn
	// Write runs the single statements that write.
	Write Conn
	// Routing runs the reads ingest depends on (HandlerDestinations):
	// the connections reserved for ingest, where the driver reserves
	// some, so that nothing else starves them; nil means Read.
	Routing Conn
	// InTx runs fn in one write transaction, committed when fn returns nil
	// and rolled back otherwise.
	InTx func(ctx context.Context, fn func(tx Conn) error) error
	// Enter is called before each operation, and the release it returns
	// after it; it fails once the store is closed. Nil when the driver
	// needs no such guard.
	Enter func() (release func(), err error)
	// MapErr maps a driver error to the store's sentinel errors (see
	// store.ErrNotFound and store.ErrUnavailable).
	MapErr func(ctx context.Context, err error) error
	// Dialect is how the driver's SQL differs; its Placeholder is Question,
	// for the Conns rewrite placeholders themselves.
	Dialect Dialect
	// Payloads seals and opens the payload columns.
	Payloads Payloads
}

// Ops is the half of the store.DB operations that every SQL driver does
// alike, written once over a Backend. A driver embeds it in its Store and
// keeps only what is its own (ingest, claims, outcomes, listening,
// migrations, backups).
type Ops struct {
	b Backend
}

// NewOps returns the operations over b.
func NewOps(b Backend) *Ops { return &Ops{b: b} }

// enter guards one operation against Close; see Backend.Enter.
func (o *Ops) enter() (release func(), err error) {
	if o.b.Enter == nil {
		return func() {}, nil
	}
	return o.b.Enter()
}

// fail wraps err, mapped, with what failed.
func (o *Ops) fail(ctx context.Context, what string, err error) error {
	return fmt.Errorf("%s: %w", what, o.b.MapErr(ctx, err))
}

// collect reads every row of a query with scan, into a list that is never
// nil.
func collect[T any](rows Rows, err error, scan func(Rows) (T, error)) ([]T, error) {
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := make([]T, 0)
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return out, nil
}
