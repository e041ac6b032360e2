package postgres

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
	"github.com/hookrelay/hookrelay/internal/store/storetest"
	"github.com/hookrelay/hookrelay/internal/testkit/testdb"
)

// receive returns the next name on ch, failing the test after a while.
func receive(t *testing.T, ch <-chan string) string {
	t.Helper()
	select {
	case name, ok := <-ch:
		if !ok {
			t.Fatal("notification channel closed")
		}
		return name
	case <-time.After(10 * time.Second):
		t.Fatal("no notification within 10s")
		return ""
	}
}

// checkReceived fails unless the next names on ch that start with prefix,
// or are empty, are want, in order. The channel is the database's: other
// tests' names come too.
func checkReceived(t *testing.T, ch <-chan string, prefix string, want ...string) {
	t.Helper()
	for _, w := range want {
		got := receive(t, ch)
		for got != "" && !strings.HasPrefix(got, prefix) {
			got = receive(t, ch)
		}
		if got != w {
			t.Fatalf("notified %q, want %q", got, w)
		}
	}
}

// uniquePrefix returns a prefix for the destination names of one test.
func uniquePrefix() string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b) + "_"
}

// checkClosed fails unless ch is closed soon, after any names left.
func checkClosed(t *testing.T, ch <-chan string) {
	t.Helper()
	timeout := time.After(10 * time.Second)
	for {
		select {
		case _, ok := <-ch:
			if !ok {
				return
			}
		case <-timeout:
			t.Fatal("notification channel not closed within 10s")
		}
	}
}

func itemTo(providerID string, destinations ...string) store.IngestItem {
	it := storetest.Item("stripe", providerID, []byte("{}"))
	it.Deliveries = nil
	for _, d := range destinations {
		it.Deliveries = append(it.Deliveries, store.NewDelivery{Destination: d})
	}
	return it
}

// TestListenDeliversDestinations checks that each committed batch
// notifies each of its destinations once, in order of first mention, and
// that a batch that rolls back notifies nothing. Since notifications of
// one session arrive in commit order, a later batch's name proves that
// nothing more came from an earlier one.
func TestListenDeliversDestinations(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := openURL(t, testdb.PostgresURL(t))
	other := openURL(t, testdb.PostgresURL(t)) // another process, on another schema
	ch, err := s.Listen(ctx)
	if err != nil {
		t.Fatalf("Listen: %v", err)
	}
	p := uniquePrefix()
	if _, err := s.Ingest(ctx, []store.IngestItem{
		itemTo("a", p+"crm", p+"billing"), itemTo("b", p+"billing"), itemTo("c", p+"audit", p+"crm"),
	}); err != nil {
		t.Fatalf("Ingest: %v", err)
	}
	checkReceived(t, ch, p, p+"crm", p+"billing", p+"audit")

	if _, err := s.Ingest(ctx, []store.IngestItem{itemTo("d", p+"lost"), itemTo("z\x00", p+"lost")}); err == nil {
		t.Fatal("Ingest of a provider id with NUL succeeded")
	}
	if _, err := s.Ingest(ctx, []store.IngestItem{itemTo("e")}); err != nil {
		t.Fatalf("Ingest without deliveries: %v", err)
	}
	if _, err := other.Ingest(ctx, []store.IngestItem{itemTo("f", p+"elsewhere")}); err != nil {
		t.Fatalf("Ingest: %v", err)
	}
	checkReceived(t, ch, p, p+"elsewhere")
}

// TestListenReconnects ends the listening session from another one, as a
// server restart or failover would: Listen reconnects, sends an empty
// name for what it may have missed, and goes on.
func TestListenReconnects(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	u, err := url.Parse(testdb.PostgresURL(t))
	if err != nil {
		t.Fatal(err)
	}
	app := "hookrelay_test_" + u.Query().Get("search_path")
	q := u.Query()
	q.Set("application_name", app)
	u.RawQuery = q.Encode()
	s := openURL(t, u.String())
	ch, err := s.Listen(ctx)
	if err != nil {
		t.Fatalf("Listen: %v", err)
	}
	var n int
	err = s.other.QueryRow(ctx, `SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
		WHERE application_name = $1 AND query = $2`, app, "LISTEN "+notifyChannel).Scan(&n)
	if err != nil || n != 1 {
		t.Fatalf("terminated %d listening sessions (%v), want 1", n, err)
	}
	p := uniquePrefix()
	checkReceived(t, ch, p, "")
	if _, err := s.Ingest(ctx, []store.IngestItem{itemTo("a", p+"billing")}); err != nil {
		t.Fatalf("Ingest: %v", err)
	}
	checkReceived(t, ch, p, p+"billing")
}

func TestListenStops(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	s := openURL(t, testdb.PostgresURL(t))
	byCtx, err := s.Listen(ctx)
	if err != nil {
		t.Fatalf("Listen: %v", err)
	}
	byClose, err := s.Listen(context.Background())
	if err != nil {
		t.Fatalf("Listen: %v", err)
	}
	cancel()
	checkClosed(t, byCtx)
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	checkClosed(t, byClose)
	if _, err := s.Listen(context.Background()); !errors.Is(err, store.ErrUnavailable) {
		t.Errorf("Listen after Close: error = %v, want ErrUnavailable", err)
	}
}
