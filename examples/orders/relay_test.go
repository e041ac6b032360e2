package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay"
	"github.com/hookrelay/hookrelay/hookrelaytest"
	"github.com/hookrelay/hookrelay/internal/testkit"
	"github.com/hookrelay/hookrelay/internal/testkit/testdb"
)

// stripeSecret is the stripe source's signing secret in these tests.
const stripeSecret = "whsec_dGVzdC1zZWNyZXQ"

// TestRoutes checks which destinations the application's events fan out
// to on the relay main builds: invoice.paid to the orders handler, other
// types nowhere.
func TestRoutes(t *testing.T) {
	t.Parallel()
	a := testApp(t, testdb.Drivers()[0])
	relay, err := newRelay(a, relayOptions{stripeSecret: stripeSecret, handler: markPaid}, quiet)
	if err != nil {
		t.Fatal(err)
	}
	for typ, want := range map[string][]string{
		"invoice.paid":           {"orders"},
		"invoice.payment_failed": {},
		"customer.created":       {},
	} {
		got, err := hookrelaytest.Routes(relay, hookrelaytest.NewEvent("stripe", typ, invoice("evt_"+typ, "in_r", 100)))
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s fans out to %v, want %v", typ, got, want)
		}
	}
}

// TestReceiver runs the application as main assembles it — its database
// migrated with golang-migrate, hookrelay on its pool or handle with
// ManualMigrations, its mux — and posts Stripe's sample invoice.paid event,
// signed as Stripe signs it: it is answered 200, and GET /orders shows
// the order paid once; sent again, it is a duplicate and pays nothing
// more.
func TestReceiver(t *testing.T) {
	t.Parallel()
	body, err := os.ReadFile("../events/stripe-invoice-paid.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, driver := range testdb.Drivers() {
		t.Run(driver.Name, func(t *testing.T) {
			t.Parallel()
			a := testApp(t, driver)
			relay, err := newRelay(a, relayOptions{stripeSecret: stripeSecret, handler: markPaid}, quiet)
			if err != nil {
				t.Fatal(err)
			}
			if err := relay.Start(context.Background()); err != nil {
				t.Fatalf("start on the migrated database: %v", err)
			}
			t.Cleanup(func() {
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				defer cancel()
				if err := relay.Shutdown(ctx); err != nil {
					t.Error(err)
				}
			})
			srv := httptest.NewServer(newMux(relay, a))
			t.Cleanup(srv.Close)

			ev := hookrelaytest.NewEvent("stripe", "invoice.paid", body)
			want := []order{{ID: "in_1QExample000000000000001", PaidCents: 2000, Status: "paid", Payments: 1}}
			if got := post(t, relay, srv.URL, ev); got != "stored" {
				t.Errorf("first post: %s, want stored", got)
			}
			testkit.Eventually(t, 10*time.Second, "the order to be paid", func() error {
				got := getOrders(t, srv.URL)
				return testkit.Check(slices.Equal(got, want), "GET /orders: %+v", got)
			})
			if got := post(t, relay, srv.URL, ev); got != "duplicate" {
				t.Errorf("second post: %s, want duplicate", got)
			}
			if got := getOrders(t, srv.URL); !slices.Equal(got, want) {
				t.Errorf("GET /orders after the duplicate: %+v, want %+v", got, want)
			}
		})
	}
}

// post posts ev to the application's receiver at base, signed as Stripe
// signs it, and returns the status the receiver answered 200 with.
func post(t *testing.T, relay *hookrelay.Relay, base string, ev hookrelay.Event) string {
	t.Helper()
	req, err := hookrelaytest.SignedRequest(relay, base+"/webhooks/stripe", ev)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("POST /webhooks/stripe: %s %s", resp.Status, b)
	}
	var answer struct{ Status string }
	if err := json.Unmarshal(b, &answer); err != nil {
		t.Fatalf("POST /webhooks/stripe: %v: %s", err, b)
	}
	return answer.Status
}

// getOrders returns what GET /orders answers.
func getOrders(t *testing.T, base string) []order {
	t.Helper()
	resp, err := http.Get(base + "/orders")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out []order
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		t.Fatalf("GET /orders: %s: %v", resp.Status, err)
	}
	return out
}
