package store

import "context"

// WithinFunc runs inside the transaction CompleteWithin opens. tx is the
// driver's own transaction, unwrapped: a pgx.Tx on PostgreSQL, a *sql.Tx
// on SQLite. c is the completion about to be recorded with it; the
// function may change its Status (done or skipped), its Attempt's Error
// and Duration. It must not commit or roll tx back.
type WithinFunc func(ctx context.Context, tx any, c *Completion) error

// TxCompleter records a delivery's outcome in the same transaction as the
// caller's own writes, so that the two commit together or not at all.
type TxCompleter interface {
	// CompleteWithin opens one transaction, checks that c's delivery is
	// still processing under c.LeaseToken and keeps every other claimer
	// off it until the transaction ends, and calls fn with the
	// transaction. When fn returns nil, it records c — whose Status must
	// then be done or skipped — as CompleteDelivery would, in that
	// transaction, and commits: fn's writes and the outcome are durable
	// together. When fn returns an error, the transaction rolls back,
	// nothing is recorded, and CompleteWithin returns fn's error as is;
	// when fn panics, the transaction rolls back and the panic goes on.
	// When the lease is no longer held it returns an error wrapping
	// ErrLeaseLost without calling fn; when the database cannot be
	// reached or the commit fails, an error wrapping ErrUnavailable: fn's
	// writes and c were then committed together or not at all (a
	// connection lost during the commit leaves which one unknown).
	//
	// The transaction holds a database connection while fn runs; on
	// SQLite it holds the only writer, so every other write, ingest
	// included, waits for it: fn must be short.
	CompleteWithin(ctx context.Context, c Completion, fn WithinFunc) error
}
