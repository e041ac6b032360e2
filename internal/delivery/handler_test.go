package delivery

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/hookrelay/hookrelay/internal/config"
	"github.com/hookrelay/hookrelay/internal/store"
	"github.com/hookrelay/hookrelay/internal/testkit"
)

// handlerDestination returns a handler destination with short timings.
func handlerDestination(name string) config.Destination {
	d := config.DefaultDestination()
	d.Name, d.Handler, d.Sources = name, true, []string{"src"}
	d.Timeout = config.Duration(2 * time.Second)
	d.MaxAttempts = 3
	d.Backoff = []config.Duration{config.Duration(10 * time.Millisecond)}
	return d
}

// TestEngineHandlerOutcomes runs one handler over four events: one it
// handles, one it skips, one on which it always fails and one on which it
// panics. The failing ones are tried max_attempts times, then dead; each
// call gets the driver's native transaction.
func TestEngineHandlerOutcomes(t *testing.T) {
	t.Parallel()
	eachDriver(t, func(t *testing.T, b testBundle) {
		events := ingestEvents(t, b.store, 4, []string{"h"}, nil)
		var (
			mu    sync.Mutex
			calls = map[string]int{}
		)
		handle := func(ctx context.Context, tx any, c store.Claim) error {
			switch tx.(type) {
			case *sql.Tx, pgx.Tx:
			default:
				return fmt.Errorf("transaction of type %T", tx)
			}
			mu.Lock()
			calls[c.Event.ID]++
			mu.Unlock()
			switch c.Event.ID {
			case events[1].ID:
				return fmt.Errorf("stale: %w", ErrSkip)
			case events[2].ID:
				return errors.New("order not found\x00" + strings.Repeat("x", 1000))
			case events[3].ID:
				panic("nil map")
			}
			return nil
		}
		startEngine(t, Options{Queue: b.queue, Within: b.store, Registerer: b.reg,
			Destinations: []config.Destination{handlerDestination("h")}, Handlers: map[string]Handler{"h": handle}})

		waitStatus(t, b.store, events[:1], "h", store.StatusDone, 10*time.Second)
		waitStatus(t, b.store, events[1:2], "h", store.StatusSkipped, 10*time.Second)
		waitStatus(t, b.store, events[2:], "h", store.StatusDead, 10*time.Second)
		mu.Lock()
		defer mu.Unlock()
		want := []int{1, 1, 3, 3}
		for i, e := range events {
			if calls[e.ID] != want[i] {
				t.Errorf("event %d handled %d times, want %d", i, calls[e.ID], want[i])
			}
		}
		if d := deliveryOf(t, b.store, events[2].ID, "h"); d.Attempts != 3 || d.LastError != ShortError("order not found"+strings.Repeat("x", 1000)) {
			t.Errorf("failing delivery = %+v, want 3 attempts with the handler's error, shortened", d)
		}
		if d := deliveryOf(t, b.store, events[3].ID, "h"); d.LastError != "handler panicked: nil map" {
			t.Errorf("panicking delivery's last error = %q", d.LastError)
		}
		// The dead letter is counted just after its transaction commits,
		// so the status can be read a moment before the count.
		testkit.Eventually(t, 10*time.Second, "two dead letters counted", func() error {
			n := counterValue(t, b.reg, "hookrelay_dead_letters_total", map[string]string{"destination": "h"})
			return testkit.Check(n == 2, "%v counted", n)
		})
	})
}

func TestNewRejectsHandlerWithoutFunction(t *testing.T) {
	t.Parallel()
	eachDriver(t, func(t *testing.T, b testBundle) {
		_, err := New(Options{Queue: b.queue, Within: b.store, Destinations: []config.Destination{handlerDestination("h")}})
		if err == nil {
			t.Error("New accepted a handler destination without a handler")
		}
	})
}
