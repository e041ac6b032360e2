package postgres

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/hookrelay/hookrelay/internal/store"
	"github.com/hookrelay/hookrelay/internal/store/sqlstore"
	"github.com/hookrelay/hookrelay/internal/store/storetest"
	"github.com/hookrelay/hookrelay/internal/testkit"
	"github.com/hookrelay/hookrelay/internal/testkit/testdb"
)

// openURL opens and migrates a store, closed when the test ends.
func openURL(t *testing.T, dbURL string) *Store {
	t.Helper()
	return storetest.Migrated(t, func(ctx context.Context) (*Store, error) {
		return Open(ctx, dbURL, WithTestPartitions(Options{IngestConns: 2, OtherConns: 2}), slog.New(slog.DiscardHandler))
	})
}

// TestIngestPoolCommitsSynchronously sets synchronous_commit=off as the
// session default, as a server or role default could: the ingest pool must
// still commit synchronously.
func TestIngestPoolCommitsSynchronously(t *testing.T) {
	t.Parallel()
	u, err := url.Parse(testdb.PostgresURL(t))
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("synchronous_commit", "off")
	u.RawQuery = q.Encode()
	s := openURL(t, u.String())

	for _, c := range []struct {
		pool string
		conn interface {
			QueryRow(context.Context, string, ...any) pgx.Row
		}
		want string
	}{
		{"ingest", s.ingest, "on"},
		{"other", s.other, "off"},
	} {
		var got string
		if err := c.conn.QueryRow(context.Background(), "SHOW synchronous_commit").Scan(&got); err != nil {
			t.Fatalf("SHOW synchronous_commit: %v", err)
		}
		if got != c.want {
			t.Errorf("%s pool: synchronous_commit = %s, want %s", c.pool, got, c.want)
		}
	}
}

// TestIngestBatchIsAtomic makes the last item of a batch fail (PostgreSQL
// text cannot hold NUL): nothing of the batch may be committed.
func TestIngestBatchIsAtomic(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := openURL(t, testdb.PostgresURL(t))
	_, err := s.Ingest(ctx, []store.IngestItem{storetest.Item("stripe", "a", []byte("{}")), storetest.Item("stripe", "b", []byte("{}")), storetest.Item("stripe", "z\x00", []byte("{}"))})
	if err == nil {
		t.Fatal("Ingest of a provider id with NUL succeeded, want an error")
	}
	if errors.Is(err, store.ErrUnavailable) {
		t.Errorf("Ingest error = %v, want an error that does not wrap ErrUnavailable", err)
	}
	for _, id := range []string{"evt_a", "evt_b"} {
		if _, err := s.GetEvent(ctx, id); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("GetEvent(%s) after a failed batch: error = %v, want ErrNotFound", id, err)
		}
	}
	got, err := s.Ingest(ctx, []store.IngestItem{storetest.Item("stripe", "a", []byte("{}"))})
	if err != nil || got[0] != store.IngestStored {
		t.Errorf("Ingest after a failed batch = %v, %v; want [stored]", got, err)
	}
}

// TestConcurrentMigrate has several stores, as several processes would,
// migrate one new schema at once.
func TestConcurrentMigrate(t *testing.T) {
	t.Parallel()
	dbURL := testdb.PostgresURL(t)
	ms, err := sqlstore.ReadMigrations(migrationFiles, "migrations")
	if err != nil {
		t.Fatal(err)
	}
	open := func(ctx context.Context) (*Store, error) {
		return Open(ctx, dbURL, WithTestPartitions(Options{IngestConns: 1, OtherConns: 1}), nil)
	}
	recorded := func(s *Store) (n int, err error) {
		err = s.other.QueryRow(context.Background(), s.sql.SQL("SELECT count(*) FROM hookrelay.schema_migrations")).Scan(&n)
		return n, err
	}
	storetest.MigrateConcurrently(t, 4, open, recorded, len(ms))
}

func TestOpenUnreachableIsUnavailable(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	s, err := Open(ctx, "postgres://postgres@127.0.0.1:1/test?connect_timeout=2", Options{}, nil)
	if err == nil {
		s.Close()
		t.Fatal("Open of a closed port succeeded")
	}
	if !errors.Is(err, store.ErrUnavailable) {
		t.Errorf("Open of a closed port: error = %v, want ErrUnavailable", err)
	}
}

func TestMapErr(t *testing.T) {
	t.Parallel()
	s := &Store{}
	ctx := context.Background()
	for _, c := range []struct {
		err             error
		wantUnavailable bool
		wantNotFound    bool
	}{
		{pgx.ErrNoRows, false, true},
		{fmt.Errorf("scan: %w", pgx.ErrNoRows), false, true},
		{&pgconn.PgError{Code: "57P01"}, true, false},  // admin_shutdown
		{&pgconn.PgError{Code: "57P03"}, true, false},  // cannot_connect_now
		{&pgconn.PgError{Code: "08006"}, true, false},  // connection_failure
		{&pgconn.PgError{Code: "53100"}, true, false},  // disk_full
		{&pgconn.PgError{Code: "53300"}, true, false},  // too_many_connections
		{&pgconn.PgError{Code: "58030"}, true, false},  // io_error
		{&pgconn.PgError{Code: "25006"}, true, false},  // read_only_sql_transaction
		{&pgconn.PgError{Code: "40P01"}, true, false},  // deadlock_detected
		{&pgconn.PgError{Code: "23505"}, false, false}, // unique_violation
		{&pgconn.PgError{Code: "22021"}, false, false}, // character_not_in_repertoire
		{&pgconn.PgError{Code: "42P01"}, false, false}, // undefined_table
		{context.DeadlineExceeded, true, false},
		{fmt.Errorf("read: %w", io.ErrUnexpectedEOF), true, false},
		{errors.New("some bug"), false, false},
	} {
		got := s.mapErr(ctx, c.err)
		if errors.Is(got, store.ErrUnavailable) != c.wantUnavailable || errors.Is(got, store.ErrNotFound) != c.wantNotFound {
			t.Errorf("mapErr(%v) = %v; want unavailable %t, not found %t", c.err, got, c.wantUnavailable, c.wantNotFound)
		}
	}
}

// TestServerTerminatingIngestIsUnavailable ends the ingest pool's sessions
// from another session, as a server shutdown or failover would: the next
// Ingest either succeeds on a new connection or fails with ErrUnavailable.
func TestServerTerminatingIngestIsUnavailable(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := openURL(t, testdb.PostgresURL(t))
	if _, err := s.Ingest(ctx, []store.IngestItem{storetest.Item("stripe", "a", []byte("{}"))}); err != nil {
		t.Fatalf("Ingest: %v", err)
	}
	var pid uint32
	conn, err := s.ingest.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	pid = conn.Conn().PgConn().PID()
	conn.Release()
	if _, err := s.other.Exec(ctx, "SELECT pg_terminate_backend($1)", pid); err != nil {
		t.Fatalf("terminate: %v", err)
	}
	testkit.Eventually(t, 10*time.Second, "the terminated backend gone", func() error {
		var alive bool
		if err := s.other.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_stat_activity WHERE pid = $1)", pid).Scan(&alive); err != nil {
			return err
		}
		return testkit.Check(!alive, "backend %d still listed", pid)
	})
	_, err = s.Ingest(ctx, []store.IngestItem{storetest.Item("stripe", "b", []byte("{}"))})
	if err != nil && !errors.Is(err, store.ErrUnavailable) {
		t.Errorf("Ingest on a terminated connection: error = %v, want nil or ErrUnavailable", err)
	}
	t.Logf("Ingest on a terminated connection: %v", err)
}
