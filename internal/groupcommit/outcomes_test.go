package groupcommit_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/groupcommit"
	"github.com/hookrelay/hookrelay/internal/store"
	"github.com/hookrelay/hookrelay/internal/testkit/testdb"
)

// claimed ingests n events to billing and claims their deliveries.
func claimed(t *testing.T, st store.DB, n int) (store.Queue, []store.Claim) {
	t.Helper()
	ctx := context.Background()
	items := make([]store.IngestItem, n)
	for i := range items {
		items[i] = event(fmt.Sprintf("id_%d", i), fmt.Sprintf("evt_%d", i))
	}
	if _, err := st.Ingest(ctx, items); err != nil {
		t.Fatal(err)
	}
	cs, err := st.ClaimDeliveries(ctx, store.ClaimRequest{Destination: "billing", Max: n, Lease: time.Minute, Now: time.Now().Add(time.Second)})
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) != n {
		t.Fatalf("claimed %d deliveries, want %d", len(cs), n)
	}
	return st, cs
}

func done(c store.Claim) store.Completion {
	return store.Completion{
		DeliveryID: c.Delivery.ID, LeaseToken: c.LeaseToken, Status: store.StatusDone,
		Attempt: store.Attempt{StatusCode: 200, Duration: time.Millisecond},
	}
}

// record records every completion of cs at once and returns each one's
// answer once all have come.
func record(t *testing.T, o *groupcommit.Outcomes, cs []store.Completion) []error {
	t.Helper()
	errs := make([]error, len(cs))
	var wg sync.WaitGroup
	for i, c := range cs {
		wg.Add(1)
		go func() {
			if err := o.Record(c, func(err error) { errs[i] = err; wg.Done() }); err != nil {
				errs[i] = err
				wg.Done()
			}
		}()
	}
	wg.Wait()
	return errs
}

// TestOutcomesShareTransactions checks that concurrent outcomes are each
// recorded once and answered once, sharing transactions, and that an
// outcome whose lease was lost is answered as such.
func TestOutcomesShareTransactions(t *testing.T) {
	t.Parallel()
	for _, driver := range testdb.Drivers() {
		t.Run(driver.Name, func(t *testing.T) {
			t.Parallel()
			st := openStore(t, driver)
			q, claims := claimed(t, st, 200)
			var log batchLog
			o := groupcommit.NewOutcomes(q, groupcommit.Options{Committers: 2, MaxBatch: 64, Observe: log.observe},
				slog.New(slog.NewTextHandler(io.Discard, nil)))
			defer o.Close()

			cs := make([]store.Completion, len(claims))
			for i, c := range claims {
				cs[i] = done(c)
			}
			cs[13].LeaseToken = "not-the-token"
			for i, err := range record(t, o, cs) {
				if i == 13 {
					if !errors.Is(err, store.ErrLeaseLost) {
						t.Errorf("outcome under a lost lease: %v, want ErrLeaseLost", err)
					}
					continue
				}
				if err != nil {
					t.Errorf("outcome %d: %v", i, err)
				}
			}
			for i, c := range claims {
				as, err := q.DeliveryAttempts(context.Background(), c.Delivery.ID)
				if err != nil {
					t.Fatal(err)
				}
				if want := 1 - b2i(i == 13); len(as) != want {
					t.Errorf("delivery %d has %d attempts, want %d", i, len(as), want)
				}
			}
			log.mu.Lock()
			defer log.mu.Unlock()
			total, biggest := 0, 0
			for _, s := range log.sizes {
				total += s
				biggest = max(biggest, s)
			}
			if total != len(cs) || biggest < 2 || biggest > 64 {
				t.Errorf("batches held %d outcomes, the biggest %d; want %d, some shared, none over 64", total, biggest, len(cs))
			}
		})
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestOutcomeCloseWritesQueued checks that Close records every outcome
// already queued and answers it before returning.
func TestOutcomeCloseWritesQueued(t *testing.T) {
	t.Parallel()
	for _, driver := range testdb.Drivers() {
		t.Run(driver.Name, func(t *testing.T) {
			t.Parallel()
			st := openStore(t, driver)
			q, claims := claimed(t, st, 50)
			o := groupcommit.NewOutcomes(q, groupcommit.Options{}, slog.New(slog.NewTextHandler(io.Discard, nil)))
			var mu sync.Mutex
			answered := 0
			for _, c := range claims {
				if err := o.Record(done(c), func(err error) {
					if err != nil {
						t.Errorf("outcome: %v", err)
					}
					mu.Lock()
					answered++
					mu.Unlock()
				}); err != nil {
					t.Fatal(err)
				}
			}
			o.Close()
			if answered != len(claims) {
				t.Errorf("%d outcomes answered by Close, want %d", answered, len(claims))
			}
			if err := o.Record(done(claims[0]), func(error) { t.Error("answered after Close") }); !errors.Is(err, groupcommit.ErrClosed) {
				t.Errorf("Record after Close: %v, want ErrClosed", err)
			}
			for _, c := range claims {
				as, err := q.DeliveryAttempts(context.Background(), c.Delivery.ID)
				if err != nil || len(as) != 1 {
					t.Fatalf("delivery %d: %d attempts, %v; want 1", c.Delivery.ID, len(as), err)
				}
			}
		})
	}
}

// TestBadOutcomeFailsAlone checks that an outcome the store refuses fails
// alone, while the outcomes batched with it are recorded.
func TestBadOutcomeFailsAlone(t *testing.T) {
	t.Parallel()
	st := openStore(t, testdb.Drivers()[0])
	q, claims := claimed(t, st, 16)
	o := groupcommit.NewOutcomes(q, groupcommit.Options{}, slog.New(slog.NewTextHandler(io.Discard, nil)))
	defer o.Close()
	cs := make([]store.Completion, len(claims))
	for i, c := range claims {
		cs[i] = done(c)
	}
	cs[5].Status = store.StatusPending
	for i, err := range record(t, o, cs) {
		if (i == 5) != (err != nil) || errors.Is(err, store.ErrLeaseLost) {
			t.Errorf("outcome %d: err = %v", i, err)
		}
	}
}
