package adminapi_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/hookrelay/hookrelay/internal/store/storeopen"
	"github.com/hookrelay/hookrelay/internal/testkit"
	"github.com/hookrelay/hookrelay/internal/testkit/testdb"
)

// erasedBody is a webhook body to be purged and the byte strings whose
// presence in a database file would show that some of it is still there.
type erasedBody struct {
	kind    string
	id      string // the provider's event id, also in the body
	body    []byte
	needles [][]byte
}

// randomText returns n characters of base64 of random bytes: text that no
// compressor shortens and that appears nowhere else.
func randomText(t *testing.T, n int) string {
	t.Helper()
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return base64.RawStdEncoding.EncodeToString(b)[:n]
}

// windows returns the windows of s of size n starting every step bytes.
func windows(s string, n, step int) [][]byte {
	var out [][]byte
	for i := 0; i+n <= len(s); i += step {
		out = append(out, []byte(s[i:i+n]))
	}
	return out
}

// erasedBodies makes three bodies: a large one of random text (stored out
// of line on PostgreSQL, uncompressed), a large one that compresses well
// (compressed on PostgreSQL, so its needles are windows of 8 bytes, what
// a compressor leaves of a literal run), and a small one. Each names a
// customer of its own, the ordering key of the crm destination.
func erasedBodies(t *testing.T) []erasedBody {
	t.Helper()
	var out []erasedBody
	random := randomText(t, 6000)
	customer := "cus_" + randomText(t, 24)
	b := erasedBody{kind: "random", id: "evt_erase_random", body: fmt.Appendf(nil, `{"id":"evt_erase_random","type":"invoice.paid","data":{"object":{"customer":%q,"blob":%q}}}`, customer, random)}
	b.needles = append(windows(random, 16, 997), []byte(customer), []byte(hex.EncodeToString([]byte(random[100:116]))))
	out = append(out, b)

	marker := randomText(t, 32)
	customer = "cus_" + randomText(t, 24)
	note := strings.Repeat("jane.doe@example.com wrote again; ", 300)
	b = erasedBody{kind: "compressible", id: "evt_erase_compressible", body: fmt.Appendf(nil, `{"id":"evt_erase_compressible","type":"invoice.paid","data":{"object":{"customer":%q,"marker":%q,"note":%q}}}`, customer, marker, note)}
	b.needles = append(windows(marker, 8, 1), []byte(customer))
	out = append(out, b)

	small := randomText(t, 40)
	customer = "cus_" + randomText(t, 24)
	b = erasedBody{kind: "small", id: "evt_erase_small", body: fmt.Appendf(nil, `{"id":"evt_erase_small","type":"invoice.paid","data":{"object":{"customer":%q,"secret":%q}}}`, customer, small)}
	b.needles = append(windows(small, 16, 12), []byte(customer))
	out = append(out, b)
	return out
}

// dbDisk finds a test database's files, and makes the server write its
// buffers to them.
type dbDisk struct {
	driver string
	url    string
	files  map[string]bool // every file seen so far, scanned even once gone
}

// openDisk returns the disk of the bundle's database. On PostgreSQL it
// skips the test when the server's data directory cannot be read here.
func openDisk(t *testing.T, b *testBundle) *dbDisk {
	t.Helper()
	d := &dbDisk{driver: b.driver, url: b.url, files: map[string]bool{}}
	if d.driver == "postgres" {
		dir := d.dataDirectory(t)
		if _, err := os.ReadDir(dir); err != nil {
			t.Skipf("PostgreSQL's data directory %s cannot be read here (%v): the raw scan needs the server on this machine and read access to its files", dir, err)
		}
	}
	d.list(t)
	return d
}

func (d *dbDisk) connect(t *testing.T) (*pgx.Conn, context.Context, context.CancelFunc) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	conn, err := pgx.Connect(ctx, d.url)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	return conn, ctx, func() { _ = conn.Close(context.Background()); cancel() }
}

// schema returns the schema of hookrelay's tables on PostgreSQL.
func (d *dbDisk) schema(t *testing.T) string {
	t.Helper()
	tables, err := storeopen.Tables(d.url)
	if err != nil {
		t.Fatal(err)
	}
	return tables.Schema()
}

func (d *dbDisk) dataDirectory(t *testing.T) string {
	t.Helper()
	conn, ctx, done := d.connect(t)
	defer done()
	var dir string
	if err := conn.QueryRow(ctx, "SHOW data_directory").Scan(&dir); err != nil {
		t.Fatal(err)
	}
	return dir
}

// list adds the database's files to d.files: SQLite's database, WAL and
// shared-memory index; on PostgreSQL every fork of the schema's tables,
// their indexes, their TOAST tables and the TOAST tables' indexes.
func (d *dbDisk) list(t *testing.T) {
	t.Helper()
	if d.driver == "sqlite" {
		path := strings.TrimPrefix(d.url, "sqlite:")
		for _, f := range []string{path, path + "-wal", path + "-shm"} {
			d.files[f] = true
		}
		return
	}
	conn, ctx, done := d.connect(t)
	defer done()
	dir := d.dataDirectory(t)
	rows, err := conn.Query(ctx, `WITH rels AS (
	SELECT oid, reltoastrelid FROM pg_class WHERE relnamespace = $1::regnamespace AND relkind IN ('r', 'i')
), toast AS (
	SELECT reltoastrelid AS oid FROM rels WHERE reltoastrelid <> 0
)
SELECT pg_relation_filepath(oid) FROM rels
UNION SELECT pg_relation_filepath(oid) FROM toast
UNION SELECT pg_relation_filepath(indexrelid) FROM pg_index WHERE indrelid IN (SELECT oid FROM toast)`, d.schema(t))
	if err != nil {
		t.Fatal(err)
	}
	paths, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range paths {
		for _, fork := range []string{"", "_fsm", "_vm"} {
			d.files[filepath.Join(dir, p+fork)] = true
		}
	}
}

// flush makes PostgreSQL write every dirty buffer to the files (a
// checkpoint); SQLite's files are what a scan reads already.
func (d *dbDisk) flush(t *testing.T) {
	t.Helper()
	if d.driver != "postgres" {
		return
	}
	conn, ctx, done := d.connect(t)
	defer done()
	if _, err := conn.Exec(ctx, "CHECKPOINT"); err != nil {
		t.Fatal(err)
	}
}

// exec runs an operator's statement on the database.
func (d *dbDisk) exec(t *testing.T, stmt string) {
	t.Helper()
	conn, ctx, done := d.connect(t)
	defer done()
	if _, err := conn.Exec(ctx, stmt); err != nil {
		t.Fatalf("%s: %v", stmt, err)
	}
}

// find returns the files that hold one of the needles, and which.
func (d *dbDisk) find(t *testing.T, needles [][]byte) []string {
	t.Helper()
	var hits []string
	for f := range d.files {
		data, err := os.ReadFile(f)
		if os.IsNotExist(err) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range needles {
			if i := bytes.Index(data, n); i >= 0 {
				hits = append(hits, fmt.Sprintf("%s at byte %d (%q)", f, i, n))
				break
			}
		}
	}
	return hits
}

// TestPurgeLeavesNoPayloadOnDisk ingests events through the public port,
// purges them through the admin API, runs the statement the purge answers
// with for the bytes to leave the files (PostgreSQL's), stops the store,
// and scans every file of the database byte by byte: no window of a purged
// body is left, where each was found before the purge.
//
// On PostgreSQL it runs in a database of its own: VACUUM FULL keeps a dead
// row while a transaction of its database may still see it, and the other
// tests hold theirs open in the shared one.
func TestPurgeLeavesNoPayloadOnDisk(t *testing.T) {
	t.Parallel()
	drivers := []testdb.Driver{{Name: "sqlite", URL: testdb.SQLiteURL}, {Name: "postgres", URL: testdb.PostgresDatabaseURL}}
	for _, driver := range drivers {
		t.Run(driver.Name, func(t *testing.T) {
			t.Parallel()
			testPurgeLeavesNoPayloadOnDisk(t, driver)
		})
	}
}

func testPurgeLeavesNoPayloadOnDisk(t *testing.T, driver testdb.Driver) {
	{
		cfg := parseConfig(t, `  - {name: crm, url: "http://127.0.0.1:9/crm", secret: "${BILLING_SIGN}", sources: [stripe], ordering_key: data.object.customer}
`)
		b := setup(t, driver, cfg)
		disk := openDisk(t, b)
		bodies := erasedBodies(t)
		var ids []string
		for _, e := range bodies {
			ids = append(ids, b.send(t, webhook{source: "stripe", id: e.id, typ: "invoice.paid", body: e.body}))
		}
		// Events kept, stored after the purged ones, so that no cleanup
		// can pass for erasure by cutting the end off a file.
		for i := range 30 {
			b.send(t, webhook{source: "stripe", id: fmt.Sprintf("evt_kept_%d", i), typ: "invoice.paid",
				body: fmt.Appendf(nil, `{"id":"evt_kept_%d","type":"invoice.paid","data":{"object":{"customer":"cus_kept","blob":%q}}}`, i, randomText(t, 3000))})
		}
		disk.flush(t)
		disk.list(t)
		for _, e := range bodies {
			if len(disk.find(t, e.needles)) == 0 {
				t.Fatalf("before the purge no file holds the %s body: the scan would prove nothing", e.kind)
			}
		}

		var res map[string]any
		wantStatus(t, "purge", b.call(t, adminToken, "POST", "/api/v1/purge", map[string]any{"ids": ids, "reason": "erasure request"}, &res), 200)
		if res["purged"] != float64(len(ids)) {
			t.Fatalf("purge answered %v; want %d purged", res, len(ids))
		}
		stmt, _ := res["follow_up_sql"].(string)
		if driver.Name == "sqlite" && stmt != "" {
			t.Fatalf("purge on SQLite left a follow-up %q: it clears its files itself", stmt)
		}
		if stmt != "" {
			// VACUUM FULL keeps a dead row version that a transaction
			// older than the purge may still see, and the tests around
			// this one hold transactions on the same server: run it
			// again, as the docs say, until none of those is left.
			testkit.Eventually(t, time.Minute, "no purged body on disk after "+strconv.Quote(stmt), func() error {
				disk.exec(t, stmt)
				disk.flush(t)
				disk.list(t)
				return testkit.Check(!disk.holdsAny(t, bodies), "a purged body is still on disk")
			})
		}
		// While the store runs, and again after a clean stop.
		disk.flush(t)
		disk.list(t)
		disk.expectNone(t, bodies, "after the purge and "+strconv.Quote(stmt))
		if err := b.store.Close(); err != nil {
			t.Fatal(err)
		}
		disk.flush(t)
		disk.list(t)
		disk.expectNone(t, bodies, "after the purge, "+strconv.Quote(stmt)+" and a stop")
	}
}

// holdsAny reports whether some file holds some of the bodies.
func (d *dbDisk) holdsAny(t *testing.T, bodies []erasedBody) bool {
	t.Helper()
	return slices.ContainsFunc(bodies, func(e erasedBody) bool { return len(d.find(t, e.needles)) > 0 })
}

// expectNone fails the test for each body some file still holds.
func (d *dbDisk) expectNone(t *testing.T, bodies []erasedBody, when string) {
	t.Helper()
	for _, e := range bodies {
		if hits := d.find(t, e.needles); len(hits) > 0 {
			t.Errorf("%s, the %s body is still in: %s", when, e.kind, strings.Join(hits, "; "))
		}
	}
}
