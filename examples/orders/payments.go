package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"

	"github.com/hookrelay/hookrelay"
)

// invoicePaid is the part of Stripe's invoice.paid event the application
// reads.
type invoicePaid struct {
	Data struct {
		Object struct {
			ID         string `json:"id"`
			AmountPaid int64  `json:"amount_paid"`
		} `json:"object"`
	} `json:"data"`
}

// markPaid records the payment an invoice.paid event reports and adds it
// to its order, inside tx: hookrelay commits these writes together with
// its record that the event was handled, or neither. payments has no
// unique key on the event id, and the order's paid amount is a sum: it is
// the transaction, not an idempotency check, that keeps a payment from
// counting twice. A body it cannot decode is a permanent failure — no
// retry can change the stored bytes: the delivery is dead at once, for an
// operator to look at — and an invoice with no order or amount is skipped.
func markPaid(ctx context.Context, tx hookrelay.Tx, ev hookrelay.Event) error {
	var inv invoicePaid
	if err := json.Unmarshal(ev.Body, &inv); err != nil {
		return hookrelay.Permanent(fmt.Errorf("decode event %s: %w", ev.ID, err))
	}
	order, amount := inv.Data.Object.ID, inv.Data.Object.AmountPaid
	if order == "" || amount <= 0 {
		return fmt.Errorf("invoice %q paid %d: nothing to record: %w", order, amount, hookrelay.Skip)
	}
	if err := execTx(ctx, tx, `INSERT INTO payments (event_id, order_id, amount_cents, received_at) VALUES ($1, $2, $3, $4)`,
		ev.ProviderEventID, order, amount, ev.ReceivedAt.UTC().Format("2006-01-02T15:04:05.000000Z")); err != nil {
		return fmt.Errorf("record payment: %w", err)
	}
	if err := execTx(ctx, tx, `INSERT INTO orders (id, paid_cents, status) VALUES ($1, $2, 'paid')
ON CONFLICT (id) DO UPDATE SET paid_cents = orders.paid_cents + excluded.paid_cents, status = 'paid'`,
		order, amount); err != nil {
		return fmt.Errorf("mark order paid: %w", err)
	}
	return nil
}

// execTx runs one statement in the handler's transaction, whichever the
// database: the application supports both, and both drivers take $1
// placeholders. Neither accessor lets the handler end the transaction:
// hookrelay commits it, with its record that the event was handled, when
// markPaid returns nil.
func execTx(ctx context.Context, tx hookrelay.Tx, query string, args ...any) error {
	if pg := tx.Postgres(); pg != nil {
		_, err := pg.Exec(ctx, query, args...)
		return err
	}
	return execSQL(ctx, tx.SQLite(), query, args...)
}

// dbtx is the part of sqlc's DBTX this application uses: a
// hookrelay.SQLiteTx is one, as is the application's own *sql.DB, so that
// the same queries run inside a handler and outside.
type dbtx interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// execSQL runs one statement on db.
func execSQL(ctx context.Context, db dbtx, query string, args ...any) error {
	_, err := db.ExecContext(ctx, query, args...)
	return err
}
