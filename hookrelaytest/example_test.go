package hookrelaytest_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"time"

	"github.com/hookrelay/hookrelay"
	"github.com/hookrelay/hookrelay/hookrelaytest"
)

// The application's handler destination and its handler, as it declares
// them with Relay.Handle: markPaid adds an invoice's amount to its order,
// waits for an order that is not there yet, and gives up on a body it
// cannot read.
var orders = hookrelay.Destination{Name: "orders", Sources: []string{"stripe"}, Types: []string{"invoice.paid"}}

func markPaid(ctx context.Context, tx hookrelay.Tx, ev hookrelay.Event) error {
	var inv struct {
		Data struct {
			Object struct {
				Order  string `json:"order"`
				Amount int    `json:"amount_paid"`
			} `json:"object"`
		} `json:"data"`
	}
	if err := json.Unmarshal(ev.Body, &inv); err != nil {
		return hookrelay.Permanent(fmt.Errorf("decode invoice: %w", err))
	}
	res, err := tx.SQLite().ExecContext(ctx, `UPDATE orders SET paid_cents = paid_cents + $1 WHERE id = $2`,
		inv.Data.Object.Amount, inv.Data.Object.Order)
	if err != nil {
		return fmt.Errorf("mark order paid: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return hookrelay.Snooze(time.Minute) // the order is created by another event
	}
	return nil
}

// An application's test runs its handler on events of its own making,
// inside transactions of its own database, and reads what the relay would
// record and what the handler left in its tables.
func ExampleHandler_Run() {
	dir, _ := os.MkdirTemp("", "hookrelaytest-example-")
	defer os.RemoveAll(dir)
	db, err := sql.Open("sqlite", filepath.Join(dir, "app.db"))
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	db.Exec(`CREATE TABLE orders (id text PRIMARY KEY, paid_cents integer NOT NULL DEFAULT 0)`)
	db.Exec(`INSERT INTO orders (id) VALUES ('ord_1')`)

	h := hookrelaytest.NewHandler(hookrelaytest.SQLite(db), orders, markPaid)
	for _, body := range []string{
		`{"id":"evt_1","type":"invoice.paid","data":{"object":{"order":"ord_1","amount_paid":2000}}}`,
		`{"id":"evt_2","type":"invoice.paid","data":{"object":{"order":"ord_2","amount_paid":500}}}`,
		`{"id":"evt_3","type":"invoice.paid","data":`,
	} {
		res, err := h.Run(context.Background(), hookrelaytest.NewEvent("stripe", "invoice.paid", body))
		if err != nil {
			log.Fatal(err)
		}
		switch res.Outcome {
		case hookrelaytest.Snoozed:
			fmt.Println(res.Outcome, "for", res.SnoozedFor)
		case hookrelaytest.Dead:
			fmt.Println(res.Outcome, "with", res.Err)
		default:
			fmt.Println(res.Outcome)
		}
	}
	var paid int
	db.QueryRow(`SELECT paid_cents FROM orders WHERE id = 'ord_1'`).Scan(&paid)
	fmt.Println("ord_1 paid", paid)
	// Output:
	// done
	// snoozed for 1m0s
	// dead with decode invoice: unexpected end of JSON input
	// ord_1 paid 2000
}

// An application's test checks which destinations its events fan out to,
// on a Relay it does not start.
func ExampleRoutes() {
	r, err := hookrelay.New(hookrelay.Config{
		Sources: []hookrelay.Source{{Name: "stripe", Verify: "stripe", Secrets: []string{"whsec_dGVzdC1zZWNyZXQ"}}},
	})
	if err != nil {
		log.Fatal(err)
	}
	r.Handle(orders, markPaid)
	r.Handle(hookrelay.Destination{Name: "audit", Sources: []string{"stripe"}}, func(context.Context, hookrelay.Tx, hookrelay.Event) error { return nil })

	for _, typ := range []string{"invoice.paid", "customer.created"} {
		names, err := hookrelaytest.Routes(r, hookrelaytest.NewEvent("stripe", typ, `{}`))
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(typ, names)
	}
	// Output:
	// invoice.paid [orders audit]
	// customer.created [audit]
}

// An application's test posts a webhook signed as Stripe signs it to its
// Receiver, served by an httptest.Server: verified and stored, it is
// answered 200.
func ExampleSignedRequest() {
	dir, _ := os.MkdirTemp("", "hookrelaytest-example-")
	defer os.RemoveAll(dir)
	r, err := hookrelay.New(hookrelay.Config{
		Database: "sqlite:" + filepath.Join(dir, "app.db"),
		Sources:  []hookrelay.Source{{Name: "stripe", Verify: "stripe", Secrets: []string{"whsec_dGVzdC1zZWNyZXQ"}}},
	})
	if err != nil {
		log.Fatal(err)
	}
	if err := r.Start(context.Background()); err != nil {
		log.Fatal(err)
	}
	defer r.Close()
	mux := http.NewServeMux()
	mux.Handle("POST /hooks/stripe", r.ReceiverFor(hookrelay.FixedSource("stripe")))
	srv := httptest.NewServer(mux)
	defer srv.Close()

	ev := hookrelaytest.NewEvent("stripe", "invoice.paid", map[string]any{"id": "evt_1", "type": "invoice.paid"})
	req, err := hookrelaytest.SignedRequest(r, srv.URL+"/hooks/stripe", ev)
	if err != nil {
		log.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		log.Fatal(err)
	}
	resp.Body.Close()
	fmt.Println(resp.Status)
	// Output:
	// 200 OK
}
