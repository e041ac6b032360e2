package hookrelay_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay"
	"github.com/hookrelay/hookrelay/internal/adminclient"
	"github.com/hookrelay/hookrelay/internal/adminwire"
	"github.com/hookrelay/hookrelay/internal/testkit"
	"github.com/hookrelay/hookrelay/internal/testkit/testdb"
)

// callbackLog records what OnDead and OnAttemptFailed are told.
type callbackLog struct {
	mu     sync.Mutex
	dead   []hookrelay.DeadLetter
	failed []hookrelay.FailedAttempt
}

// config sets c's callbacks to record into l.
func (l *callbackLog) config(c *hookrelay.Config) {
	c.OnDead = func(d hookrelay.DeadLetter) {
		l.mu.Lock()
		defer l.mu.Unlock()
		l.dead = append(l.dead, d)
	}
	c.OnAttemptFailed = func(f hookrelay.FailedAttempt) {
		l.mu.Lock()
		defer l.mu.Unlock()
		l.failed = append(l.failed, f)
	}
}

func (l *callbackLog) snapshot() ([]hookrelay.DeadLetter, []hookrelay.FailedAttempt) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.dead), slices.Clone(l.failed)
}

// consumerSecret is the token of the pull consumer of the tests.
const consumerSecret = "tok_consumer_0123456789abcdef0123"

// TestOnDeadOncePerDeadDelivery sends one event to a handler, a push and
// a pull destination, each failing it until its two attempts run out:
// OnDead is told once of each dead delivery, and OnAttemptFailed of each
// of the six attempts, the last of each dead.
func TestOnDeadOncePerDeadDelivery(t *testing.T) {
	t.Parallel()
	eachDriver(t, func(t *testing.T, drv testdb.Driver) {
		push := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			http.Error(w, "down", http.StatusInternalServerError)
		}))
		t.Cleanup(push.Close)
		var log callbackLog
		file := withFile(t, `destinations:
  - {name: hook, url: "`+push.URL+`", secret: "`+destinationSecret+`", sources: [stripe], max_attempts: 2, backoff: [10ms]}
  - {name: queue, pull: true, secret: "`+destinationSecret+`", sources: [stripe], max_attempts: 2, backoff: [10ms]}
`)
		b := setupWith(t, drv.URL(t), func(c *hookrelay.Config) {
			file(c)
			log.config(c)
			c.Tokens = append(c.Tokens, hookrelay.Token{Name: "consumer", Role: hookrelay.RoleConsumer, Secret: consumerSecret, Destinations: []string{"queue"}})
		}, func(r *hookrelay.Relay) {
			r.Handle(orders(2), func(context.Context, hookrelay.Tx, hookrelay.Event) error { return errors.New("order service down") })
		})
		b.mustPost(t, stripeEvent("evt_cb_dead", "checkout.session.completed", "ord_30", time.Now()))

		consumer := adminclient.New(b.admin, consumerSecret)
		for attempt := 1; attempt <= 2; attempt++ {
			got, err := consumer.Claim(t.Context(), "queue", adminclient.ClaimRequest{Wait: 5 * time.Second})
			if err != nil || len(got.Deliveries) != 1 {
				t.Fatalf("claim %d: %v, %d deliveries, want 1", attempt, err, len(got.Deliveries))
			}
			d := got.Deliveries[0]
			if _, err := consumer.Ack(t.Context(), d.ID, adminwire.AckRequest{
				Outcome: adminwire.OutcomeFailed, Error: "local server down", StatusCode: 502, LeaseToken: d.LeaseToken,
			}); err != nil {
				t.Fatalf("ack %d: %v", attempt, err)
			}
		}

		testkit.Eventually(t, 15*time.Second, "a dead letter of each destination", func() error {
			dead, failed := log.snapshot()
			return testkit.Check(len(dead) >= 3 && len(failed) >= 6, "%d dead letters, %d failed attempts", len(dead), len(failed))
		})
		// A second report would follow within the 10ms backoff.
		testkit.Consistently(t, 200*time.Millisecond, "no more reports", func() error {
			dead, failed := log.snapshot()
			return testkit.Check(len(dead) == 3 && len(failed) == 6, "%d dead letters, %d failed attempts", len(dead), len(failed))
		})
		dead, failed := log.snapshot()
		want := map[string]struct {
			err  string
			code int
		}{"orders": {"order service down", 0}, "hook": {"status 500", 500}, "queue": {"local server down", 502}}
		for _, d := range dead {
			w, ok := want[d.Destination]
			if !ok || d.Source != "stripe" || d.Type != "checkout.session.completed" || d.ProviderEventID != "evt_cb_dead" ||
				d.EventID == "" || d.DeliveryID == 0 || d.Attempts != 2 || d.LastError != w.err || d.LastStatusCode != w.code {
				t.Errorf("dead letter = %+v, want the %s delivery after 2 attempts", d, d.Destination)
			}
			delete(want, d.Destination)
		}
		if len(want) != 0 {
			t.Errorf("no dead letter of %v", want)
		}
		for _, f := range failed {
			if f.Attempt < 1 || f.Attempt > 2 || f.Dead != (f.Attempt == 2) || f.Dead == !f.NextAttemptAt.IsZero() ||
				f.ProviderEventID != "evt_cb_dead" || f.Error == "" {
				t.Errorf("failed attempt = %+v, want attempt 1 retried and attempt 2 dead", f)
			}
		}
	})
}

// TestOnDeadSlowCallbackDoesNotHoldDelivery blocks OnAttemptFailed: the
// deliveries still go dead, and the next event is handled, as if no
// callback were set; Shutdown gives up on the blocked callback when its
// context ends.
func TestOnDeadSlowCallbackDoesNotHoldDelivery(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	defer close(release)
	b := setupWith(t, testdb.SQLiteURL(t), func(c *hookrelay.Config) {
		c.OnAttemptFailed = func(hookrelay.FailedAttempt) { <-release }
	}, func(r *hookrelay.Relay) {
		r.Handle(orders(1), func(ctx context.Context, tx hookrelay.Tx, ev hookrelay.Event) error {
			if ev.ProviderEventID != "evt_cb_after" {
				return errors.New("refused")
			}
			return insertEffect(ctx, tx, ev, "handled")
		})
	})
	for _, id := range []string{"evt_cb_fails_1", "evt_cb_fails_2"} {
		b.mustPost(t, stripeEvent(id, "checkout.session.completed", "ord_31", time.Now()))
		waitDelivery(t, b.relay, id, "orders", hookrelay.StatusDead)
	}
	b.mustPost(t, stripeEvent("evt_cb_after", "checkout.session.completed", "ord_31", time.Now()))
	waitDelivery(t, b.relay, "evt_cb_after", "orders", hookrelay.StatusDone)

	ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
	defer cancel()
	if err := b.relay.Shutdown(ctx); err != nil {
		t.Errorf("Shutdown: %v", err)
	}
}
