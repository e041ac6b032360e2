package console_test

import (
	"context"
	"crypto/rand"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/oklog/ulid/v2"

	"github.com/hookrelay/hookrelay/internal/adminapi"
	"github.com/hookrelay/hookrelay/internal/store"
	"github.com/hookrelay/hookrelay/internal/testkit/testdb"
)

// benchEventsEnv overrides how many events BenchmarkEventsPage stores.
const benchEventsEnv = "HOOKRELAY_BENCH_EVENTS"

// BenchmarkEventsPage renders the events page over a store of 5 000 000
// events (each with one delivery), on each driver: the newest page, a page
// of one source, a later page and a provider-id lookup.
// Each case is measured twice in the same run: the admin API's listing
// alone (the baseline: what the store costs) and the whole page as the
// console serves it.
func BenchmarkEventsPage(b *testing.B) {
	n := 5_000_000
	if v := os.Getenv(benchEventsEnv); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil {
			b.Fatalf("%s: %v", benchEventsEnv, err)
		}
	}
	for _, d := range testdb.Drivers() {
		b.Run(d.Name, func(b *testing.B) {
			bd := setup(b, d)
			start := time.Now()
			var newest, mid string
			if d.Name == "postgres" {
				newest, mid = seedPostgres(b, bd.url, n)
			} else {
				newest, mid = seedEvents(b, bd.store, n)
			}
			b.Logf("seeded %d events on %s in %v", n, d.Name, time.Since(start).Round(time.Second))
			// Log in without following the redirect: the overview is
			// not what is measured.
			c := bd.anonymous(b)
			c.http.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
			if status, page := c.submitLogin(adminToken); status != http.StatusSeeOther {
				b.Fatalf("log in: %d %s", status, page)
			}
			handler := bd.srv.Config.Handler
			cookies := c.http.Jar.Cookies(mustURL(b, bd.srv.URL))
			cases := []struct {
				name   string
				filter adminapi.Filter
				cursor string
				query  string
			}{
				{"newest", adminapi.Filter{}, "", ""},
				{"source", adminapi.Filter{Source: "github"}, "", "source=github"},
				{"page-deep", adminapi.Filter{}, mid, "cursor=" + mid},
				{"provider-id", adminapi.Filter{}, "", "q=" + newest},
			}
			for _, bc := range cases {
				b.Run(bc.name+"/api-listing", func(b *testing.B) {
					if bc.name == "provider-id" {
						b.Skip("the listing has no provider-id filter: the page looks the id up first")
					}
					svc := adminapi.NewService(adminapi.Options{Store: bd.store, Config: bd.cfg})
					for b.Loop() {
						if _, err := svc.ListEvents(context.Background(), bc.filter, bc.cursor, 50); err != nil {
							b.Fatal(err)
						}
					}
				})
				b.Run(bc.name+"/page", func(b *testing.B) {
					for b.Loop() {
						req := httptest.NewRequest(http.MethodGet, "/events?"+bc.query, nil)
						for _, ck := range cookies {
							req.AddCookie(ck)
						}
						rec := httptest.NewRecorder()
						handler.ServeHTTP(rec, req)
						if rec.Code != http.StatusOK {
							b.Fatalf("GET /events?%s: %d", bc.query, rec.Code)
						}
					}
				})
			}
		})
	}
}

// seedEvents stores n events through Ingest, in batches, alternately from
// stripe (an invoice with a delivery to billing) and github (a push to
// dev-alice), received 10 ms apart up to now, every delivery pending. It
// returns the newest event's provider id and the id of the middle event,
// a cursor deep in the log.
func seedEvents(b *testing.B, st store.Store, n int) (newest, mid string) {
	b.Helper()
	const batch = 2000
	step := 10 * time.Millisecond
	first := time.Now().UTC().Add(-time.Duration(n) * step)
	entropy := ulid.Monotonic(rand.Reader, 0)
	items := make([]store.IngestItem, 0, batch)
	for i := range n {
		at := first.Add(time.Duration(i) * step)
		id := ulid.MustNew(ulid.Timestamp(at), entropy).String()
		pid := fmt.Sprintf("evt_%09d", i)
		src, typ, dest := "stripe", "invoice.paid", "billing"
		if i%2 == 1 {
			src, typ, dest = "github", "push", "dev-alice"
		}
		body := fmt.Appendf(nil, `{"id":%q,"type":%q,"data":{"object":{"id":"obj_%d","amount":%d}}}`, pid, typ, i%1000, i)
		items = append(items, store.IngestItem{
			Event: store.Event{ID: id, Source: src, ProviderEventID: pid, IDOrigin: store.IDFromBody, Type: typ,
				Body: body, ContentType: "application/json", Headers: map[string][]string{"Content-Type": {"application/json"}},
				ReceivedAt: at, OccurredAt: at.Add(-time.Second)},
			Deliveries: []store.NewDelivery{{Destination: dest}},
		})
		if i == n/2 {
			mid = id
		}
		newest = pid
		if len(items) == batch || i == n-1 {
			if _, err := st.Ingest(context.Background(), items); err != nil {
				b.Fatalf("seed: %v", err)
			}
			items = items[:0]
		}
	}
	return newest, mid
}

// seedPostgres stores n events as seedEvents describes, but with INSERT
// ... SELECT generate_series: through Ingest, 5 000 000 take an hour.
// Ids are ULID-shaped: the receive time's milliseconds, then the event's
// number, in Crockford base 32.
func seedPostgres(b *testing.B, url string, n int) (newest, mid string) {
	b.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close(ctx)
	first := time.Now().UTC().Add(-time.Duration(n) * 10 * time.Millisecond)
	for _, st := range []struct {
		sql  string
		args []any
	}{
		{`CREATE FUNCTION pg_temp.b32(v bigint) RETURNS text LANGUAGE sql IMMUTABLE AS $$
			SELECT substr(a, ((v >> 45) & 31)::int + 1, 1) || substr(a, ((v >> 40) & 31)::int + 1, 1) ||
				substr(a, ((v >> 35) & 31)::int + 1, 1) || substr(a, ((v >> 30) & 31)::int + 1, 1) ||
				substr(a, ((v >> 25) & 31)::int + 1, 1) || substr(a, ((v >> 20) & 31)::int + 1, 1) ||
				substr(a, ((v >> 15) & 31)::int + 1, 1) || substr(a, ((v >> 10) & 31)::int + 1, 1) ||
				substr(a, ((v >> 5) & 31)::int + 1, 1) || substr(a, (v & 31)::int + 1, 1)
			FROM (SELECT '0123456789ABCDEFGHJKMNPQRSTVWXYZ' AS a) AS x $$`, nil},
		{`INSERT INTO events (id, source, provider_event_id, id_origin, type, body, content_type,
			signature_slot, occurred_at, received_at)
		SELECT pg_temp.b32((extract(epoch FROM at) * 1000)::bigint) || pg_temp.b32(g) || '000000',
			CASE WHEN g % 2 = 0 THEN 'stripe' ELSE 'github' END, 'evt_' || lpad(g::text, 9, '0'), 'body',
			CASE WHEN g % 2 = 0 THEN 'invoice.paid' ELSE 'push' END,
			convert_to('{"id":"evt_' || lpad(g::text, 9, '0') || '","data":{"object":{"id":"obj_' || (g % 1000) || '","amount":' || g || '}}}', 'UTF8'),
			'application/json', 0, at - interval '1 second', at
		FROM generate_series(0, $1::integer - 1) AS g, LATERAL (SELECT $2::timestamptz + g * interval '10 milliseconds' AS at) AS t`,
			[]any{n, first}},
		{`INSERT INTO deliveries (event_id, destination, status, attempts, next_attempt_at, order_at, created_at, updated_at)
		SELECT id, CASE WHEN source = 'stripe' THEN 'billing' ELSE 'dev-alice' END, 'pending', 0, received_at, occurred_at, received_at, received_at
		FROM events`, nil},
		{`VACUUM ANALYZE events`, nil},
		{`VACUUM ANALYZE deliveries`, nil},
	} {
		if _, err := conn.Exec(ctx, st.sql, st.args...); err != nil {
			b.Fatalf("seed: %v", err)
		}
	}
	if err := conn.QueryRow(ctx, `SELECT id FROM events ORDER BY id OFFSET $1 LIMIT 1`, n/2).Scan(&mid); err != nil {
		b.Fatal(err)
	}
	return fmt.Sprintf("evt_%09d", n-1), mid
}
