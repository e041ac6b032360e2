package storecopy_test

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
	"github.com/hookrelay/hookrelay/internal/store/storecopy"
	"github.com/hookrelay/hookrelay/internal/store/storeopen"
	"github.com/hookrelay/hookrelay/internal/store/storetest"
	"github.com/hookrelay/hookrelay/internal/testkit/testdb"
)

// open opens a fresh database of driver, migrated unless bare, closed
// when the test ends.
func open(t *testing.T, driver testdb.Driver, bare bool) store.DB {
	t.Helper()
	ctx := context.Background()
	s, err := storeopen.Open(ctx, driver.URL(t), slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if !bare {
		if err := s.Migrate(ctx); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

// TestCopyEveryDirection copies a store with rows in every table and every
// delivery state from each driver to each, in batches of three rows, and
// checks every row and what the copy then does.
func TestCopyEveryDirection(t *testing.T) {
	t.Parallel()
	for _, from := range testdb.Drivers() {
		for _, to := range testdb.Drivers() {
			t.Run(from.Name+"_to_"+to.Name, func(t *testing.T) {
				t.Parallel()
				storetest.CheckCopy(t, open(t, from, false), open(t, to, false), func(t *testing.T, src, dst store.DB) {
					counts, err := (&storecopy.Copier{Batch: 3}).Copy(context.Background(), src, dst)
					if err != nil {
						t.Fatalf("Copy: %v", err)
					}
					for _, c := range counts {
						if c.Source != c.Copied || c.Copied != c.Target {
							t.Errorf("Copy counted %+v", c)
						}
					}
				})
			})
		}
	}
}

// TestCopyRefuses checks that a copy into a store with rows, or between
// stores with pending migrations, writes nothing and says why.
func TestCopyRefuses(t *testing.T) {
	t.Parallel()
	for _, driver := range testdb.Drivers() {
		t.Run(driver.Name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			src, full := open(t, driver, false), open(t, driver, false)
			if err := full.SetPaused(ctx, "billing", true, "alice", time.Date(2026, 3, 3, 9, 0, 0, 0, time.UTC)); err != nil {
				t.Fatal(err)
			}
			c := &storecopy.Copier{}
			_, err := c.Copy(ctx, src, full)
			if !errors.Is(err, storecopy.ErrTargetNotEmpty) || !strings.Contains(err.Error(), "paused_destinations (1)") {
				t.Errorf("Copy into a store with a row: %v, want ErrTargetNotEmpty naming paused_destinations (1)", err)
			}
			for _, tc := range []struct {
				side     storecopy.Side
				src, dst store.DB
			}{
				{"source", open(t, driver, true), open(t, driver, false)},
				{"target", src, open(t, driver, true)},
			} {
				_, err := c.Copy(ctx, tc.src, tc.dst)
				var pending *storecopy.PendingError
				if !errors.As(err, &pending) || pending.Side != tc.side || !errors.Is(err, storecopy.ErrPendingMigrations) {
					t.Errorf("Copy with an unmigrated %s: %v, want a PendingError of the %s", tc.side, err, tc.side)
				}
			}
		})
	}
}
