package main

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/hookrelay/hookrelay/hookrelaytest"
	"github.com/hookrelay/hookrelay/internal/testkit/testdb"
)

// invoice returns the body of a Stripe invoice.paid event: event id,
// invoice (the application's order) and amount paid.
func invoice(eventID, order string, amount int) string {
	return fmt.Sprintf(`{"id":%q,"object":"event","type":"invoice.paid","data":{"object":{"id":%q,"object":"invoice","amount_paid":%d}}}`,
		eventID, order, amount)
}

// TestMarkPaid runs the handler on synthetic invoice.paid events, each
// inside a transaction of the application's own database as hookrelay
// would run it, and checks the outcome hookrelay would record and what
// the handler left in the application's tables: a payment is recorded and
// added to its order, an invoice with nothing paid is skipped, and a body
// that cannot be decoded is dead at once, its writes rolled back.
func TestMarkPaid(t *testing.T) {
	t.Parallel()
	for _, driver := range testdb.Drivers() {
		t.Run(driver.Name, func(t *testing.T) {
			t.Parallel()
			a := testApp(t, driver)
			h := hookrelaytest.NewHandler(a.testDB(), orders, markPaid)
			// The cases run in order, on one database: the second
			// payment of in_a adds to the first.
			for _, c := range []struct {
				name, body     string
				want           hookrelaytest.Outcome
				wantErr        string // in the result's error; "" for none
				order          string
				paid, payments int64 // the order's, after the case
			}{
				{name: "paid", body: invoice("evt_a1", "in_a", 2000), want: hookrelaytest.Done,
					order: "in_a", paid: 2000, payments: 1},
				{name: "paid again", body: invoice("evt_a2", "in_a", 500), want: hookrelaytest.Done,
					order: "in_a", paid: 2500, payments: 2},
				{name: "nothing paid", body: invoice("evt_b", "in_b", 0), want: hookrelaytest.Skipped,
					wantErr: "nothing to record", order: "in_b"},
				{name: "malformed", body: `{"id":"evt_c","type":"invoice.paid","data":{"object":{"id":"in_c","amount_paid":"300"}}}`,
					want: hookrelaytest.Dead, wantErr: "decode event", order: "in_c"},
			} {
				ev := hookrelaytest.NewEvent("stripe", "invoice.paid", c.body)
				res, err := h.Run(context.Background(), ev)
				if err != nil {
					t.Fatalf("%s: %v", c.name, err)
				}
				if res.Outcome != c.want {
					t.Errorf("%s: outcome %s (%v), want %s", c.name, res.Outcome, res.Err, c.want)
				}
				if got := fmt.Sprint(res.Err); c.wantErr == "" && res.Err != nil || !strings.Contains(got, c.wantErr) {
					t.Errorf("%s: error %q, want one that says %q", c.name, got, c.wantErr)
				}
				paid := a.queryInt(t, `SELECT coalesce(sum(paid_cents), 0) FROM orders WHERE id = $1`, c.order)
				payments := a.queryInt(t, `SELECT count(*) FROM payments WHERE order_id = $1`, c.order)
				if paid != c.paid || payments != c.payments {
					t.Errorf("%s: order %s paid %d in %d payments, want %d in %d", c.name, c.order, paid, payments, c.paid, c.payments)
				}
				wantRows := int64(0) // a payment row for the event when it is done
				if c.want == hookrelaytest.Done {
					wantRows = 1
				}
				if rows := a.queryInt(t, `SELECT count(*) FROM payments WHERE event_id = $1`, ev.ProviderEventID); rows != wantRows {
					t.Errorf("%s: %d payment rows of event %s, want %d", c.name, rows, ev.ProviderEventID, wantRows)
				}
			}
		})
	}
}
