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
	"github.com/hookrelay/hookrelay/internal/store/storeopen"
	"github.com/hookrelay/hookrelay/internal/testkit/testdb"
)

func openStore(t *testing.T, driver testdb.Driver) store.DB {
	t.Helper()
	ctx := context.Background()
	st, err := storeopen.Open(ctx, driver.URL(t), slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	if err := st.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	return st
}

func event(id, providerID string) store.IngestItem {
	return store.IngestItem{
		Event: store.Event{
			ID: id, Source: "stripe", ProviderEventID: providerID, IDOrigin: store.IDFromBody,
			Type: "invoice.paid", Body: []byte(`{"id":"` + providerID + `"}`), Headers: map[string][]string{},
			ReceivedAt: time.Now().UTC(),
		},
		Deliveries: []store.NewDelivery{{Destination: "billing"}},
	}
}

type batchLog struct {
	mu    sync.Mutex
	sizes []int
}

func (b *batchLog) observe(size int, _ time.Duration, _ error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.sizes = append(b.sizes, size)
}

// TestConcurrentCommitsShareTransactions checks that concurrent callers are
// answered correctly, each once, and that they shared transactions.
func TestConcurrentCommitsShareTransactions(t *testing.T) {
	t.Parallel()
	for _, driver := range testdb.Drivers() {
		t.Run(driver.Name, func(t *testing.T) {
			t.Parallel()
			st := openStore(t, driver)
			var log batchLog
			c := groupcommit.New(st, groupcommit.Options{Committers: 2, Observe: log.observe}, slog.New(slog.NewTextHandler(io.Discard, nil)))
			defer c.Close()

			const callers, perCaller = 32, 20
			var wg sync.WaitGroup
			inserted := make([][]bool, callers)
			errs := make(chan error, callers)
			for g := range callers {
				wg.Go(func() {
					for i := range perCaller {
						// Every second event repeats the previous caller's
						// provider id, so half of all commits are duplicates
						// racing the original.
						pid := fmt.Sprintf("evt_%d_%d", g, i)
						if i%2 == 1 && g > 0 {
							pid = fmt.Sprintf("evt_%d_%d", g-1, i-1)
						}
						ok, err := c.Commit(context.Background(), event(fmt.Sprintf("id_%d_%d", g, i), pid))
						if err != nil {
							errs <- err
							return
						}
						inserted[g] = append(inserted[g], ok == store.IngestStored)
					}
				})
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Fatalf("Commit: %v", err)
			}
			n, err := st.CountEvents(context.Background(), "")
			if err != nil {
				t.Fatal(err)
			}
			var reportedNew int64
			for _, r := range inserted {
				for _, ok := range r {
					if ok {
						reportedNew++
					}
				}
			}
			if reportedNew != n {
				t.Errorf("callers were told %d events were new; the store holds %d", reportedNew, n)
			}
			log.mu.Lock()
			defer log.mu.Unlock()
			total, biggest := 0, 0
			for _, s := range log.sizes {
				total += s
				biggest = max(biggest, s)
			}
			if total != callers*perCaller {
				t.Errorf("batches held %d events, want %d", total, callers*perCaller)
			}
			if biggest < 2 {
				t.Errorf("no batch held more than one event across %d transactions", len(log.sizes))
			}
		})
	}
}

// TestBadEventDoesNotFailOthers checks that an event the store refuses for
// its own reason fails alone, while the events batched with it commit.
func TestBadEventDoesNotFailOthers(t *testing.T) {
	t.Parallel()
	st := openStore(t, testdb.Drivers()[0])
	ctx := context.Background()
	if _, err := st.Ingest(ctx, []store.IngestItem{event("taken", "evt_first")}); err != nil {
		t.Fatal(err)
	}
	c := groupcommit.New(st, groupcommit.Options{}, slog.New(slog.NewTextHandler(io.Discard, nil)))
	defer c.Close()

	var wg sync.WaitGroup
	results := make([]error, 16)
	for i := range results {
		wg.Go(func() {
			id := fmt.Sprintf("ok_%d", i)
			if i == 7 {
				id = "taken" // another event holds this hookrelay id
			}
			_, results[i] = c.Commit(ctx, event(id, fmt.Sprintf("evt_%d", i)))
		})
	}
	wg.Wait()
	for i, err := range results {
		if (i == 7) != (err != nil) {
			t.Errorf("event %d: err = %v", i, err)
		}
	}
	n, err := st.CountEvents(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	if n != 16 {
		t.Errorf("store holds %d events, want 16 (15 good ones and the first)", n)
	}
}

func TestCommitAfterClose(t *testing.T) {
	t.Parallel()
	st := openStore(t, testdb.Drivers()[0])
	c := groupcommit.New(st, groupcommit.Options{}, slog.New(slog.NewTextHandler(io.Discard, nil)))
	c.Close()
	c.Close() // a second Close is harmless
	if _, err := c.Commit(context.Background(), event("a", "evt_a")); !errors.Is(err, groupcommit.ErrClosed) {
		t.Fatalf("Commit after Close: %v, want ErrClosed", err)
	}
}

func TestUnavailableStoreFailsEveryCaller(t *testing.T) {
	t.Parallel()
	st := openStore(t, testdb.Drivers()[0])
	c := groupcommit.New(st, groupcommit.Options{}, slog.New(slog.NewTextHandler(io.Discard, nil)))
	defer c.Close()
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Commit(context.Background(), event("a", "evt_a")); !errors.Is(err, store.ErrUnavailable) {
		t.Fatalf("Commit on a closed store: %v, want ErrUnavailable", err)
	}
}
