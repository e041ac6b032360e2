package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
	"github.com/hookrelay/hookrelay/internal/store/storeopen"
	"github.com/hookrelay/hookrelay/internal/testkit/testdb"
)

// TestBenchDBCountDrop makes a database per driver, stores three events
// in it through the store, counts them, and drops it.
func TestBenchDBCountDrop(t *testing.T) {
	t.Parallel()
	for _, driver := range testdb.Drivers() {
		t.Run(driver.Name, func(t *testing.T) {
			t.Parallel()
			driver.URL(t) // skips, or fails, as every PostgreSQL test does
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			d, err := newBenchDB(ctx, driver.Name, t.TempDir(), "count", os.Getenv(testdb.PostgresURLEnv))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = d.Drop(context.Background()) })
			st, err := storeopen.Open(ctx, d.URL(), slog.New(slog.DiscardHandler))
			if err != nil {
				t.Fatal(err)
			}
			if err := st.Migrate(ctx); err != nil {
				t.Fatal(err)
			}
			items := make([]store.IngestItem, 3)
			for i := range items {
				id := fmt.Sprintf("evt_%d", i)
				items[i] = store.IngestItem{Event: store.Event{
					ID: fmt.Sprintf("01J0000000000000000000000%d", i), Source: "stripe", ProviderEventID: id, IDOrigin: store.IDFromBody,
					Type: "invoice.paid", Body: []byte(`{"id":"` + id + `"}`), ContentType: "application/json", ReceivedAt: time.Now().UTC(),
				}}
			}
			if _, err := st.Ingest(ctx, items); err != nil {
				t.Fatal(err)
			}
			st.Close()
			n, err := d.CountEvents(ctx)
			if err != nil || n != 3 {
				t.Fatalf("CountEvents = %d, %v; want 3", n, err)
			}
			if err := d.Drop(ctx); err != nil {
				t.Fatal(err)
			}
			if driver.Name == "postgres" {
				if _, err := d.CountEvents(ctx); err == nil {
					t.Error("the events are still there after Drop")
				}
			}
			if driver.Name == "sqlite" {
				matches, _ := filepath.Glob(strings.TrimPrefix(d.URL(), "sqlite:") + "*")
				if len(matches) != 0 {
					t.Errorf("files left after Drop: %v", matches)
				}
			}
		})
	}
}
