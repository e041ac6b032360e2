package hookrelay_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/hookrelay/hookrelay"
)

// An application marks its orders paid from Stripe's
// checkout.session.completed events. Its orders table and hookrelay's
// tables share one SQLite file; the UPDATE and hookrelay's done mark commit
// together.
func Example() {
	dir, _ := os.MkdirTemp("", "hookrelay-example-")
	defer os.RemoveAll(dir)
	database := filepath.Join(dir, "app.db")

	// The application's own table, on its own connection.
	app, err := sql.Open("sqlite", database)
	if err != nil {
		log.Fatal(err)
	}
	defer app.Close()
	app.Exec(`CREATE TABLE orders (id text PRIMARY KEY, paid_at text)`)
	app.Exec(`INSERT INTO orders (id) VALUES ('ord_1')`)

	relay, err := hookrelay.New(hookrelay.Config{
		Database: "sqlite:" + database,
		Sources:  []hookrelay.Source{{Name: "stripe", Verify: "stripe", Secrets: []string{"whsec_dGVzdC1zZWNyZXQ"}}},
	})
	if err != nil {
		log.Fatal(err)
	}
	paid := make(chan string, 1)
	relay.Handle(hookrelay.Destination{Name: "orders", Sources: []string{"stripe"}, Types: []string{"checkout.session.completed"}},
		func(ctx context.Context, tx hookrelay.Tx, ev hookrelay.Event) error {
			order, err := orderOf(ev)
			if err != nil {
				return err // a failed attempt; retried, then dead
			}
			if _, err := tx.SQLite().ExecContext(ctx, `UPDATE orders SET paid_at = $1 WHERE id = $2`,
				ev.ReceivedAt.Format(time.RFC3339), order); err != nil {
				return err
			}
			paid <- order
			return nil
		})
	if err := relay.Start(context.Background()); err != nil {
		log.Fatal(err)
	}
	defer relay.Close()

	mux := http.NewServeMux()
	mux.Handle("/webhooks/", relay.Receiver())
	srv := httptest.NewServer(mux)
	defer srv.Close()

	// Stripe posts a signed event.
	status := postStripe(srv.URL+"/webhooks/stripe", "whsec_dGVzdC1zZWNyZXQ",
		`{"id":"evt_1","type":"checkout.session.completed","created":1764547200,"data":{"object":{"client_reference_id":"ord_1"}}}`)
	fmt.Println("stripe was answered", status)
	fmt.Println("paid:", <-paid)
	// Output:
	// stripe was answered 200
	// paid: ord_1
}

// A handler that returns an error wrapping Skip commits what it wrote and
// marks the delivery skipped rather than failed: here, an event about an
// order that is already paid.
func ExampleSkip() {
	handle := func(ctx context.Context, tx hookrelay.Tx, ev hookrelay.Event) error {
		order, err := orderOf(ev)
		if err != nil {
			return err
		}
		res, err := tx.Postgres().Exec(ctx, `UPDATE orders SET paid_at = now() WHERE id = $1 AND paid_at IS NULL`, order)
		if err != nil {
			return err // rolled back, retried on the destination's backoff
		}
		if res.RowsAffected() == 0 {
			return fmt.Errorf("order %s already paid: %w", order, hookrelay.Skip)
		}
		return nil // the UPDATE and the done mark commit together
	}
	_ = handle
}

// A handler that finds the event refers to something that is not there
// yet snoozes it: its writes roll back and it is handled again later,
// without using an attempt. One that finds the event can never be applied
// fails it permanently: dead at once, with the reason, rather than retried
// for hours.
func ExampleSnooze() {
	handle := func(ctx context.Context, tx hookrelay.Tx, ev hookrelay.Event) error {
		order, err := orderOf(ev)
		if err != nil {
			return hookrelay.Permanent(err) // an unreadable event: no retry will read it
		}
		var status string
		err = tx.Postgres().QueryRow(ctx, `SELECT status FROM orders WHERE id = $1`, order).Scan(&status)
		switch {
		case errors.Is(err, pgx.ErrNoRows):
			// The order is created by a request still in flight.
			return fmt.Errorf("order %s not created yet: %w", order, hookrelay.Snooze(30*time.Second))
		case err != nil:
			return err // a failed attempt, retried on the destination's backoff
		case status == "cancelled":
			return hookrelay.Permanent(fmt.Errorf("order %s was cancelled", order))
		}
		_, err = tx.Postgres().Exec(ctx, `UPDATE orders SET paid_at = now() WHERE id = $1`, order)
		return err
	}
	_ = handle
}

// Before Start, and after Close, the receiver answers 503 with
// Retry-After, which every provider retries.
func ExampleRelay_Receiver() {
	relay, err := hookrelay.New(hookrelay.Config{Database: "sqlite:never-opened.db"})
	if err != nil {
		log.Fatal(err)
	}
	rec := httptest.NewRecorder()
	relay.Receiver().ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/webhooks/stripe", nil))
	fmt.Println(rec.Code, rec.Header().Get("Retry-After"))
	// Output: 503 1
}

// orderOf returns the order a Stripe Checkout event is about: the
// session's client_reference_id.
func orderOf(ev hookrelay.Event) (string, error) {
	var e struct {
		Data struct {
			Object struct {
				ClientReferenceID string `json:"client_reference_id"`
			} `json:"object"`
		} `json:"data"`
	}
	if err := json.Unmarshal(ev.Body, &e); err != nil {
		return "", fmt.Errorf("decode event %s: %w", ev.ID, err)
	}
	return e.Data.Object.ClientReferenceID, nil
}

// postStripe posts body signed as Stripe signs it and returns the status.
func postStripe(url, secret, body string) int {
	t := time.Now().Unix()
	mac := hmac.New(sha256.New, []byte(secret))
	fmt.Fprintf(mac, "%d.%s", t, body)
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Stripe-Signature", fmt.Sprintf("t=%d,v1=%s", t, hex.EncodeToString(mac.Sum(nil))))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0
	}
	resp.Body.Close()
	return resp.StatusCode
}
