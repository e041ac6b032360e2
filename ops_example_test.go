package hookrelay_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/hookrelay/hookrelay"
)

// An application alerts on dead letters, fixes what made them die, and
// retries them: OnDead tells of each one, RetryDead sends it to its
// handler again.
func ExampleRelay_RetryDead() {
	dir, _ := os.MkdirTemp("", "hookrelay-example-")
	defer os.RemoveAll(dir)

	dead := make(chan hookrelay.DeadLetter, 1)
	relay, err := hookrelay.New(hookrelay.Config{
		Database: "sqlite:" + filepath.Join(dir, "app.db"),
		Sources:  []hookrelay.Source{{Name: "stripe", Verify: "stripe", Secrets: []string{"whsec_dGVzdC1zZWNyZXQ"}}},
		// Called from a goroutine of hookrelay's: page someone, open a
		// ticket, count it.
		OnDead: func(d hookrelay.DeadLetter) { dead <- d },
	})
	if err != nil {
		log.Fatal(err)
	}
	var fixed atomic.Bool
	handled := make(chan string, 1)
	relay.Handle(hookrelay.Destination{Name: "orders", Sources: []string{"stripe"}, MaxAttempts: 1},
		func(ctx context.Context, tx hookrelay.Tx, ev hookrelay.Event) error {
			if !fixed.Load() {
				return errors.New("order service down")
			}
			handled <- ev.ProviderEventID
			return nil
		})
	ctx := context.Background()
	webhooks, stop := startForExample(ctx, relay) // Start, and serve Receiver, as in the package's example
	defer stop()

	postStripe(webhooks+"/stripe", "whsec_dGVzdC1zZWNyZXQ", `{"id":"evt_1","type":"invoice.paid","created":1764547200}`)
	d := <-dead
	fmt.Printf("dead: %s %s after %d attempt: %s\n", d.Destination, d.ProviderEventID, d.Attempts, d.LastError)

	fixed.Store(true) // the order service is back
	res, err := relay.RetryDead(ctx, hookrelay.ReplayRequest{
		EventIDs:    []string{d.EventID},
		EventFilter: hookrelay.EventFilter{Destination: d.Destination},
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("re-armed:", res.Rearmed)
	fmt.Println("handled:", <-handled)
	// Output:
	// dead: orders evt_1 after 1 attempt: order service down
	// re-armed: 1
	// handled: evt_1
}

// An operations page lists a destination's dead letters, page by page,
// and shows each with its attempts.
func ExampleRelay_ListDeliveries() {
	deadLetters := func(ctx context.Context, relay *hookrelay.Relay) error {
		q := hookrelay.EventQuery{EventFilter: hookrelay.EventFilter{Destination: "orders", Status: hookrelay.StatusDead}}
		for {
			page, err := relay.ListDeliveries(ctx, q)
			if err != nil {
				return err
			}
			for _, d := range page.Deliveries {
				full, err := relay.Delivery(ctx, d.ID)
				if err != nil {
					return err
				}
				fmt.Printf("%s %s: %d attempts, last: %s\n", d.ProviderEventID, d.Type, full.Attempts, full.LastError)
			}
			if page.NextCursor == "" {
				return nil
			}
			q.Cursor = page.NextCursor
		}
	}
	_ = deadLetters
}

// A replay of a window runs as a job: the application starts it, tells
// the operator its id, and waits for it (or polls it with Job). Every
// handler it re-arms runs again, and its effects apply again: count
// first, with a dry run.
func ExampleRelay_StartReplay() {
	replayYesterday := func(ctx context.Context, relay *hookrelay.Relay, operator string) error {
		ctx = hookrelay.WithActor(ctx, operator) // named in the audit log
		req := hookrelay.ReplayRequest{EventFilter: hookrelay.EventFilter{
			Destination: "orders",
			Since:       time.Now().Add(-48 * time.Hour),
			Until:       time.Now().Add(-24 * time.Hour),
		}}
		req.DryRun = true
		count, err := relay.Replay(ctx, req)
		if err != nil {
			return err
		}
		slog.Info("replay: orders' handler will run again", "deliveries", count.Matched)
		req.DryRun = false
		job, err := relay.StartReplay(ctx, req)
		if err != nil {
			return err
		}
		job, err = relay.WaitJob(ctx, job.ID)
		if err != nil {
			return err
		}
		slog.Info("replay done", "job", job.ID, "state", job.State, "rearmed", job.Replay.Rearmed, "in_flight", job.Replay.InFlight)
		return nil
	}
	_ = replayYesterday
}

// An application serves hookrelay's metrics on its own /metrics, gives
// its operators tokens from its own secret store, and serves the admin
// API without the console.
func ExampleConfig_operations() {
	reg := prometheus.NewRegistry() // the application's registry
	relay, err := hookrelay.New(hookrelay.Config{
		Database:   "postgres://app@localhost:5432/app",
		Registerer: reg,
		Tokens: []hookrelay.Token{
			{Name: "ops", Role: hookrelay.RoleAdmin, Secret: os.Getenv("HOOKRELAY_ADMIN_TOKEN")},
			{Name: "dashboard", Role: hookrelay.RoleRead, Secret: os.Getenv("HOOKRELAY_READ_TOKEN")},
		},
		DisableConsole: true,
		OnAttemptFailed: func(f hookrelay.FailedAttempt) {
			slog.Warn("webhook delivery failed", "destination", f.Destination, "event", f.ProviderEventID,
				"attempt", f.Attempt, "error", f.Error, "next_attempt_at", f.NextAttemptAt)
		},
	})
	if err != nil {
		log.Fatal(err)
	}
	_ = relay
}

// startForExample starts relay and serves its Receiver on a test server;
// it returns the base URL of the webhooks and what stops both.
func startForExample(ctx context.Context, relay *hookrelay.Relay) (string, func()) {
	if err := relay.Start(ctx); err != nil {
		log.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/webhooks/", relay.Receiver())
	srv := httptest.NewServer(mux)
	return srv.URL + "/webhooks", func() {
		srv.Close()
		relay.Close()
	}
}
