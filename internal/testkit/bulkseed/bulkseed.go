// Package bulkseed fills a migrated database with a large history in a few
// set-based statements (a recursive CTE on SQLite, generate_series on
// PostgreSQL), for scale tests and benchmarks: storing 5 000 000 events
// through Ingest takes an hour, this takes minutes. The rows are those
// Ingest would write: ULID-shaped ids of the receive time, one delivery
// per event, the delivery counts, failure counts and activity counters
// kept by the schema's triggers, and the ingest counts added to.
package bulkseed

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	_ "modernc.org/sqlite" // registers the "sqlite" driver for database/sql

	"github.com/hookrelay/hookrelay/internal/failure"
	"github.com/hookrelay/hookrelay/internal/store/sqlstore"
	"github.com/hookrelay/hookrelay/internal/store/storeopen"
)

// Route is what one kind of seeded event is: its source and type, and the
// destination of its delivery (none when empty).
type Route struct {
	Source, Type, Destination string
}

// Spec is a history to seed.
type Spec struct {
	// N is how many events.
	N int
	// First is the receive time of the first event; each next one is
	// received Step later (at least a microsecond).
	First time.Time
	Step  time.Duration
	// Routes are the kinds of events, taken in turn: event i is
	// Routes[i % len(Routes)].
	Routes []Route
	// Done makes every delivery done after one attempt that was answered
	// 200 (kept on the delivery, as an outcome keeps it, only with
	// Attempts); otherwise every delivery is pending, due at its event's
	// receive time.
	Done bool
	// BodyBytes, when larger than an event's JSON body, pads the body
	// with spaces after the JSON to that many bytes.
	BodyBytes int
	// Failed leaves the deliveries of some routes failed, dead or
	// skipped instead.
	Failed []Failed
	// Pending leaves the deliveries of the newest Pending events pending,
	// whatever their route: the backlog at the head of the log, never
	// tried yet.
	Pending int
	// Processing makes the oldest Processing deliveries of that backlog
	// processing, held under a lease that runs out an hour after the
	// seed.
	Processing int
	// Attempts writes the attempt that recorded the outcome of every
	// done, failed or dead delivery, at its last change: answered 200, on
	// the done delivery's row, or as its Failed says, as a row of
	// attempts. Without it no attempt is written.
	Attempts bool
}

// Failed is how the deliveries of the events of one source and type
// failed: their status ("failed" or "dead") after one attempt that
// recorded StatusCode and Error, or "skipped" by an operator (Error is
// the note a skip records; no attempt), their last change at their
// event's receive time. Its source and type are a route's.
type Failed struct {
	Source, Type string
	Status       string
	StatusCode   int
	Error        string
}

// Seeded is what a seed stored, for a test to refer to.
type Seeded struct {
	// NewestProviderID is the provider event id of the last event.
	NewestProviderID string
	// MidID is the id of the middle event, a cursor deep in the log.
	MidID string
}

// ProviderID is the provider event id of the ith event (from 0).
func ProviderID(i int) string { return fmt.Sprintf("evt_%09d", i) }

// Seed stores s in the database named as the config's database key takes
// it ("sqlite:PATH" or a postgres:// URL), migrated and empty, and
// returns what it stored.
func Seed(ctx context.Context, database string, s Spec) (Seeded, error) {
	if s.N < 1 || len(s.Routes) == 0 || s.Step < time.Microsecond {
		return Seeded{}, errors.New("seed: a spec needs events, routes and a step of at least 1µs")
	}
	tables, err := storeopen.Tables(database)
	if err != nil {
		return Seeded{}, fmt.Errorf("seed: %w", err)
	}
	var out Seeded
	if path, ok := strings.CutPrefix(database, "sqlite:"); ok {
		out.MidID, err = seedSQLite(ctx, path, tables, s)
	} else {
		out.MidID, err = seedPostgres(ctx, database, tables, s)
	}
	if err != nil {
		return Seeded{}, fmt.Errorf("seed: %w", err)
	}
	out.NewestProviderID = ProviderID(s.N - 1)
	return out, nil
}

// dialect is how the drivers' SQL differs in the seed's statements.
type dialect struct {
	// series is the FROM item of the event numbers g, from 0 to n-1.
	series func(n int) string
	// time is a stored time from an integer of unix microseconds.
	time func(us string) string
	// providerID is the provider id of event g; bytes, a text as a body.
	providerID string
	bytes      func(text string) string
	// pad is text padded with spaces to n characters (left alone when
	// longer).
	pad func(text string, n int) string
}

var sqliteDialect = dialect{
	series: func(n int) string {
		return fmt.Sprintf("(WITH RECURSIVE s(g) AS (SELECT 0 UNION ALL SELECT g + 1 FROM s WHERE g < %d) SELECT g FROM s)", n-1)
	},
	time:       func(us string) string { return us },
	providerID: "'evt_' || substr('000000000' || g, -9, 9)",
	bytes:      func(t string) string { return "CAST(" + t + " AS BLOB)" },
	pad: func(t string, n int) string {
		return fmt.Sprintf("(%[1]s || substr(printf('%%%[2]ds', ''), 1, max(0, %[2]d - length(%[1]s))))", t, n)
	},
}

var postgresDialect = dialect{
	series:     func(n int) string { return fmt.Sprintf("generate_series(0, %d::bigint) AS g", n-1) },
	time:       func(us string) string { return "(timestamptz 'epoch' + (" + us + ") * interval '1 microsecond')" },
	providerID: "'evt_' || lpad(g::text, 9, '0')",
	bytes:      func(t string) string { return "convert_to(" + t + ", 'UTF8')" },
	pad:        func(t string, n int) string { return fmt.Sprintf("rpad(%[1]s, greatest(%[2]d, length(%[1]s)))", t, n) },
}

// statements returns the seed's SQL in dialect d: its events, their
// deliveries and the ingest counts, for an empty database.
func statements(s Spec, d dialect) []string {
	n := len(s.Routes)
	pick := func(field func(Route) string) string {
		var b strings.Builder
		b.WriteString("CASE g % " + fmt.Sprint(n))
		for i, r := range s.Routes {
			fmt.Fprintf(&b, " WHEN %d THEN %s", i, quote(field(r)))
		}
		b.WriteString(" END")
		return b.String()
	}
	source := pick(func(r Route) string { return r.Source })
	typ := pick(func(r Route) string { return r.Type })
	at := fmt.Sprintf("(%d + g * %d)", s.First.UnixMicro(), s.Step.Microseconds())
	id := IDSQL(at+" / 1000", "g")
	pid := d.providerID
	body := `'{"id":"' || ` + pid + ` || '","type":"' || ` + typ + ` || '","data":{"object":{"id":"obj_' || (g % 1000) || '","amount":' || g || '}}}'`
	if s.BodyBytes > 0 {
		body = d.pad(body, s.BodyBytes)
	}
	events := `INSERT INTO hookrelay.events (id, source, provider_event_id, id_origin, type, body, content_type,
	headers, signature_slot, occurred_at, received_at)
SELECT ` + id + `, ` + source + `, ` + pid + `, 'body', ` + typ + `, ` + d.bytes(body) + `,
	'application/json', '{"Content-Type":["application/json"]}', 0, ` + d.time(at+" - 1000000") + `, ` + d.time(at) + `
FROM ` + d.series(s.N)
	// A route without a destination maps to NULL, and its events get no
	// delivery.
	var dest strings.Builder
	dest.WriteString("CASE source || ' ' || type")
	routed := false
	for _, r := range s.Routes {
		if r.Destination != "" {
			fmt.Fprintf(&dest, " WHEN %s THEN %s", quote(r.Source+" "+r.Type), quote(r.Destination))
			routed = true
		}
	}
	dest.WriteString(" END")
	deliveries := `INSERT INTO hookrelay.deliveries (event_id, destination, status, attempts, next_attempt_at, order_at,
	last_status_code, created_at, updated_at, finished_at)
SELECT id, ` + dest.String() + `, 'pending', 0, received_at, occurred_at, 0, received_at, received_at, NULL
FROM hookrelay.events WHERE ` + dest.String() + ` IS NOT NULL`
	// With Attempts, done deliveries keep their attempt on their own row,
	// as an outcome writes it: they are inserted pending and made done
	// last, once the failed, dead and backlog rows are set, so that the
	// activity counters count as delivered the rows that end done.
	doneLast := s.Done && s.Attempts
	if s.Done && !doneLast {
		deliveries = strings.Replace(deliveries, "'pending', 0, received_at, occurred_at, 0, received_at, received_at, NULL",
			"'done', 1, received_at, occurred_at, 200, received_at, received_at, received_at", 1)
	}
	counts := `INSERT INTO hookrelay.ingest_counts (source, received, duplicates, rejected)
SELECT source, count(*), 0, 0 FROM hookrelay.events GROUP BY source`
	if !routed {
		return []string{events, counts}
	}
	out := []string{events, deliveries}
	for _, f := range s.Failed {
		finished := "NULL"
		if f.Status != "failed" {
			finished = "created_at"
		}
		out = append(out, fmt.Sprintf(`UPDATE hookrelay.deliveries SET status = %s, attempts = 1, last_status_code = %d,
	last_error = %s, failure_kind = %s, updated_at = created_at, finished_at = %s
WHERE event_id IN (SELECT id FROM hookrelay.events WHERE source = %s AND type = %s)`,
			quote(f.Status), f.StatusCode, quote(f.Error), quote(string(failure.Classify(f.StatusCode, f.Error))), finished,
			quote(f.Source), quote(f.Type)))
	}
	if s.Pending > 0 && (s.Done || len(s.Failed) > 0) {
		out = append(out, fmt.Sprintf(`UPDATE hookrelay.deliveries SET status = 'pending', attempts = 0, last_status_code = 0,
	last_error = '', failure_kind = 'other', updated_at = created_at, finished_at = NULL
WHERE event_id >= (SELECT id FROM hookrelay.events ORDER BY id DESC LIMIT 1 OFFSET %d)`, s.Pending-1))
	}
	if s.Pending > 0 && s.Processing > 0 {
		out = append(out, fmt.Sprintf(`UPDATE hookrelay.deliveries SET status = 'processing', attempts = 1,
	lease_until = %s, lease_token = 'seeded'
WHERE event_id IN (SELECT id FROM hookrelay.events WHERE id >= (SELECT id FROM hookrelay.events ORDER BY id DESC LIMIT 1 OFFSET %d)
	ORDER BY id LIMIT %d)`, d.time(fmt.Sprint(time.Now().Add(time.Hour).UnixMicro())), s.Pending-1, s.Processing))
	}
	if doneLast {
		backlog := ""
		if s.Pending > 0 {
			backlog = fmt.Sprintf(` AND event_id < (SELECT id FROM hookrelay.events ORDER BY id DESC LIMIT 1 OFFSET %d)`, s.Pending-1)
		}
		out = append(out, `UPDATE hookrelay.deliveries SET status = 'done', attempts = 1, last_status_code = 200,
	updated_at = created_at, finished_at = created_at, last_attempted_at = created_at, last_duration_ms = 25
WHERE status = 'pending'`+backlog)
	}
	if s.Attempts {
		out = append(out, `INSERT INTO hookrelay.attempts (delivery_id, attempted_at, duration_ms, status_code, error)
SELECT id, updated_at, 25, last_status_code, last_error FROM hookrelay.deliveries
WHERE status IN ('failed', 'dead')`)
	}
	return append(out, counts)
}

// seedSQLite runs the seed in one transaction on the SQLite file at path.
func seedSQLite(ctx context.Context, path string, tables sqlstore.Tables, s Spec) (string, error) {
	db, err := sql.Open("sqlite", path+"?_pragma=busy_timeout(30000)")
	if err != nil {
		return "", err
	}
	defer db.Close()
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return "", err
	}
	defer tx.Rollback()
	for _, st := range statements(s, sqliteDialect) {
		if _, err := tx.ExecContext(ctx, tables.Rewrite(st)); err != nil {
			return "", err
		}
	}
	if _, err := tx.ExecContext(ctx, `ANALYZE`); err != nil {
		return "", err
	}
	var mid string
	if err := tx.QueryRowContext(ctx, tables.Rewrite(`SELECT id FROM hookrelay.events ORDER BY id LIMIT 1 OFFSET ?`), s.N/2).Scan(&mid); err != nil {
		return "", err
	}
	return mid, tx.Commit()
}

// seedPostgres runs the seed on a connection to url, then analyzes.
func seedPostgres(ctx context.Context, url string, tables sqlstore.Tables, s Spec) (string, error) {
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return "", err
	}
	defer conn.Close(ctx)
	sts := statements(s, postgresDialect)
	sts = append(sts, `VACUUM ANALYZE hookrelay.events`, `VACUUM ANALYZE hookrelay.deliveries`, `VACUUM ANALYZE hookrelay.attempts`)
	for _, st := range sts {
		if _, err := conn.Exec(ctx, tables.Rewrite(st)); err != nil {
			return "", err
		}
	}
	var mid string
	if err := conn.QueryRow(ctx, tables.Rewrite(`SELECT id FROM hookrelay.events ORDER BY id OFFSET $1 LIMIT 1`), s.N/2).Scan(&mid); err != nil {
		return "", err
	}
	return mid, nil
}

// crockford is the alphabet of ULIDs.
const crockford = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"

// Number returns the number (from 0) of the seeded event whose id is id.
func Number(id string) (int, error) {
	if len(id) != 26 {
		return 0, fmt.Errorf("%q is not a seeded event's id", id)
	}
	n := 0
	for _, c := range []byte(id[10:20]) {
		d := strings.IndexByte(crockford, c)
		if d < 0 {
			return 0, fmt.Errorf("%q is not a seeded event's id", id)
		}
		n = n<<5 | d
	}
	return n, nil
}

// IDSQL returns the SQL of a seeded event's id, from integer expressions
// of its receive time in Unix milliseconds and of its number: a ULID's
// shape, 10 characters of the milliseconds, then 16 of the number, all
// Crockford base 32, so that ids sort by receive time as the store's do
// and lie in the time partitions of their receive time.
func IDSQL(millis, number string) string {
	return base32(millis) + " || " + base32(number) + " || '000000'"
}

// base32 returns the SQL of the 10 Crockford base-32 digits of the
// integer expression v (its low 50 bits), most significant first.
func base32(v string) string {
	digits := make([]string, 10)
	for i := range digits {
		digits[i] = fmt.Sprintf("substr('%s', CAST(((%s) >> %d) & 31 AS integer) + 1, 1)", crockford, v, 45-5*i)
	}
	return strings.Join(digits, " || ")
}

// quote returns s as an SQL string literal.
func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
