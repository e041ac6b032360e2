package e2e

import (
	"context"
	"crypto/rand"
	"database/sql"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/oklog/ulid/v2"

	"github.com/hookrelay/hookrelay/internal/testkit/bulkseed"
)

// The scale tests (hostile_scale_test.go) need a relay whose database
// already holds a large history. Going through the receiver would take
// minutes, so the tests migrate the database with the binary
// (`hookrelay migrate`) and fill it with SQL: what the relay then serves
// is what it finds on disk, as after months of traffic.

// bulkSource is the source the seeded history belongs to, and
// bulkDestination the destination its deliveries go to.
const (
	bulkSource      = "bulk"
	bulkDestination = "archive"
)

// migrate runs `hookrelay migrate` with the config at path.
func migrate(t *testing.T, path string, env []string) {
	t.Helper()
	if r := run(t, env, "migrate", "--config", path); r.code != 0 {
		t.Fatalf("migrate: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// seedBulk stores n small events of bulkSource received a day ago, a
// microsecond apart, each with one delivery to bulkDestination done (see
// bulkseed).
func seedBulk(t *testing.T, database string, n int) {
	t.Helper()
	start := time.Now()
	_, err := bulkseed.Seed(context.Background(), database, bulkseed.Spec{
		N: n, First: time.Now().Add(-24 * time.Hour), Step: time.Microsecond,
		Routes: []bulkseed.Route{{Source: bulkSource, Type: "invoice.paid", Destination: bulkDestination}},
		Done:   true,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("seeded %d events and deliveries in %v", n, time.Since(start).Round(time.Millisecond))
}

// seedBigBodies stores n events of bulkSource with bodies of size bytes,
// received over the last minute, with no delivery, and returns the window
// [since, until) that holds them.
func seedBigBodies(t *testing.T, database string, n, size int) (since, until time.Time) {
	t.Helper()
	since = time.Now().Add(-time.Minute).Truncate(time.Millisecond)
	ids := make([]string, n)
	for i := range ids {
		ids[i] = ulid.MustNew(ulid.Timestamp(since.Add(time.Duration(i)*time.Millisecond)), rand.Reader).String()
	}
	if path, ok := strings.CutPrefix(database, "sqlite:"); ok {
		var sts []stmt
		for i, id := range ids {
			at := since.Add(time.Duration(i) * time.Millisecond).UnixMicro()
			sts = append(sts, stmt{`INSERT INTO events (id, source, provider_event_id, id_origin, type, body, content_type,
	headers, signature_slot, occurred_at, received_at)
VALUES (?1, ?2, 'evt_big_' || ?1, 'header', 'invoice.paid', zeroblob(?3), 'application/json', '{}', 0, ?4, ?4)`,
				[]any{id, bulkSource, size, at}})
		}
		execSQLite(t, path, sts...)
	} else {
		execPostgres(t, database, stmt{`INSERT INTO events (id, source, provider_event_id, id_origin, type, body, content_type,
	signature_slot, occurred_at, received_at)
SELECT x.id, $2, 'evt_big_' || x.id, 'header', 'invoice.paid', convert_to(repeat('x', $3), 'UTF8'), 'application/json', 0,
	$4::timestamptz + (x.i - 1) * interval '1 millisecond', $4::timestamptz + (x.i - 1) * interval '1 millisecond'
FROM unnest($1::text[]) WITH ORDINALITY AS x(id, i)`, []any{ids, bulkSource, size, since}})
	}
	return since, since.Add(time.Duration(n) * time.Millisecond)
}

// stmt is one seed statement and its arguments.
type stmt struct {
	sql  string
	args []any
}

// execSQLite runs statements in one transaction on the SQLite file at
// path.
func execSQLite(t *testing.T, path string, sts ...stmt) {
	t.Helper()
	db, err := sql.Open("sqlite", path+"?_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	for _, st := range sts {
		if _, err := tx.Exec(st.sql, st.args...); err != nil {
			t.Fatalf("seed: %v", err)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
}

// execPostgres runs statements in order on a connection to url.
func execPostgres(t *testing.T, url string, sts ...stmt) {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	for _, st := range sts {
		if _, err := conn.Exec(ctx, st.sql, st.args...); err != nil {
			t.Fatalf("seed: %v", err)
		}
	}
}
