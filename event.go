package hookrelay

import (
	"context"
	"net/http"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/hookrelay/hookrelay/internal/store"
)

// HandlerFunc handles one event delivered to a handler destination, inside
// tx: the transaction in which hookrelay then marks the delivery done.
//
//   - Returning nil commits the handler's writes and the done mark together.
//   - Returning an error wrapping Skip commits the handler's writes, if any,
//     with the delivery marked skipped: the event was seen and deliberately
//     not acted on (stale, or of no interest).
//   - Returning Snooze(d), wrapped or not, rolls the handler's writes back
//     and hands the event back, to be handled again d from now: not an
//     attempt, not a failure (the order it refers to is not there yet).
//   - Returning Permanent(err), wrapped or not, rolls the writes back and
//     marks the delivery dead at once, with err's text: no retry can help.
//   - Returning any other error, or panicking, rolls the handler's writes
//     back and records a failed attempt with the error's text (its first 512
//     bytes); the event is handled again after the destination's backoff,
//     until its attempts run out and it is dead (listed, alerted, and
//     replayable).
//
// The handler must not commit or roll back tx, and must do its work through
// tx alone: work it does elsewhere (an HTTP call, a write on another
// connection) is not undone when the transaction rolls back, and may be
// repeated. ctx ends at the destination's Timeout. Keep handlers short: the
// transaction holds a connection, and on SQLite the only writer, which
// every webhook received meanwhile waits for.
type HandlerFunc func(ctx context.Context, tx Tx, ev Event) error

// Tx is the transaction a handler runs in, as the database's own Go driver
// gives it: exactly one of Postgres and SQLite is non-nil, depending on the
// Config's Database. hookrelay does not wrap queries; use the driver's API.
// hookrelay alone ends the transaction (see ErrManagedTx).
type Tx struct {
	pg pgx.Tx
	sq SQLiteTx
}

// Postgres returns the pgx transaction when the database is PostgreSQL, or
// nil. Everything pgx offers works on it — Exec, Query, batches, CopyFrom,
// and Begin, whose nested transaction (a savepoint) the handler commits or
// rolls back itself — but Commit and Rollback, which refuse with
// ErrManagedTx.
func (tx Tx) Postgres() pgx.Tx { return tx.pg }

// SQLite returns the database/sql transaction (driver modernc.org/sqlite)
// when the database is SQLite, or nil: its statements, without Commit or
// Rollback (see SQLiteTx).
func (tx Tx) SQLite() SQLiteTx { return tx.sq }

// Event is one webhook as it arrived and was verified, with the delivery
// being handled.
type Event struct {
	// ID is hookrelay's id of the event: unique, sortable by arrival, the
	// id listings, the console and replays name.
	ID string
	// Source is the source it arrived on.
	Source string
	// ProviderEventID is the provider's id of the event ("evt_…" for
	// Stripe), unique per source: a provider's redelivery of it is stored
	// once and handled once.
	ProviderEventID string
	// Type is the provider's event type ("invoice.paid"), or "".
	Type string
	// Body is the raw request body, byte for byte as the provider signed it.
	Body []byte
	// ContentType is the request's Content-Type.
	ContentType string
	// Header holds the request's headers, minus the sensitive ones
	// (Authorization, Cookie, ...).
	Header http.Header
	// OccurredAt is when the provider says the event happened; zero when it
	// does not say.
	OccurredAt time.Time
	// ReceivedAt is when hookrelay received it.
	ReceivedAt time.Time

	// Destination is the handler destination's name.
	Destination string
	// DeliveryID identifies this event's delivery to Destination.
	DeliveryID int64
	// Attempt counts the tries of this delivery, this one included: 1 the
	// first time, more after failures.
	Attempt int
	// ReplayCount is how many times the delivery was replayed (re-armed by
	// an operator after it finished); 0 before any replay.
	ReplayCount int
}

// eventOf returns the claim's event as a handler sees it.
func eventOf(c store.Claim) Event {
	e, d := c.Event, c.Delivery
	return Event{
		ID: e.ID, Source: e.Source, ProviderEventID: e.ProviderEventID, Type: e.Type,
		Body: e.Body, ContentType: e.ContentType, Header: http.Header(e.Headers),
		OccurredAt: e.OccurredAt, ReceivedAt: e.ReceivedAt,
		Destination: d.Destination, DeliveryID: d.ID, Attempt: d.Attempts, ReplayCount: d.ReplayCount,
	}
}
