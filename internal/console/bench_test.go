package console_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
	"github.com/hookrelay/hookrelay/internal/testkit/bulkseed"
	"github.com/hookrelay/hookrelay/internal/testkit/testdb"
)

// benchEventsEnv overrides how many events BenchmarkEventsPage stores in
// its large log.
const benchEventsEnv = "HOOKRELAY_BENCH_EVENTS"

// benchBaseline is how many events the small log, the baseline measured
// in the same run, holds.
const benchBaseline = 10_000

// benchLogRoutes are the routes of BenchmarkEventsPage's log, taken in
// turn: 36 of 40 events a stripe invoice.paid to billing or a github
// push to dev-alice, done; then one each of benchLogOutcomes.
func benchLogRoutes() []bulkseed.Route {
	var routes []bulkseed.Route
	for i := range 36 {
		if i%2 == 0 {
			routes = append(routes, bulkseed.Route{Source: "stripe", Type: "invoice.paid", Destination: "billing"})
		} else {
			routes = append(routes, bulkseed.Route{Source: "github", Type: "push", Destination: "dev-alice"})
		}
	}
	for _, f := range benchLogOutcomes {
		dest := "billing"
		if f.Source == "github" {
			dest = "dev-alice"
		}
		routes = append(routes, bulkseed.Route{Source: f.Source, Type: f.Type, Destination: dest})
	}
	return routes
}

// benchLogOutcomes are the deliveries of BenchmarkEventsPage's log that
// did not go well, each a 40th of them: failed after a 503 and after a
// timeout, dead after a refused connection, skipped by an operator.
var benchLogOutcomes = []bulkseed.Failed{
	{Source: "stripe", Type: "invoice.f503", Status: "failed", StatusCode: 503, Error: "status 503"},
	{Source: "github", Type: "push.timeout", Status: "failed", Error: "timeout after 10s"},
	{Source: "stripe", Type: "invoice.refused", Status: "dead", Error: "dial tcp 10.0.0.7:443: connect: connection refused"},
	{Source: "github", Type: "push.skipped", Status: "skipped", Error: "skipped by ops"},
}

// BenchmarkEventsPage renders every page of the console over a log of
// 10 000 events (the baseline) and one of 5 000 000, on each driver. The
// log is received 10 ms apart up to now, one delivery an event: 90 % done
// after an attempt answered 200, 5 % failed (a 503, a timeout), 2.5 %
// dead (a refused connection), 2.5 % skipped, each with its attempt but
// the skipped; the newest 0.2 % are a backlog not tried yet, the oldest
// tenth of it (at most 500) processing. Measured: the overview with its
// hour and day charts; the events page newest first, by source, by source
// and type, deep in the log (a cursor at its middle), by provider id, by
// the start of an id, by text in the payloads, and by every status; one
// event and its raw body; the failures, destinations, rejections, audit
// and jobs pages, and the replay form.
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
			for _, size := range []int{benchBaseline, n} {
				b.Run(fmt.Sprintf("events=%d", size), func(b *testing.B) { benchPages(b, d, size) })
			}
		})
	}
}

// benchPages seeds a log of n events on driver d and measures each page.
func benchPages(b *testing.B, d testdb.Driver, n int) {
	bd := setup(b, d)
	ctx := context.Background()
	start := time.Now()
	step := 10 * time.Millisecond
	pending := n / 500
	seeded, err := bulkseed.Seed(ctx, bd.url, bulkseed.Spec{
		N: n, First: time.Now().UTC().Add(-time.Duration(n) * step), Step: step,
		Routes: benchLogRoutes(), Done: true, Failed: benchLogOutcomes, Attempts: true,
		Pending: pending, Processing: min(pending/10, 500),
	})
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("seeded %d events on %s in %v", n, d.Name, time.Since(start).Round(time.Second))
	// The rejections and audit pages read a bounded table each: give them
	// a page of rows.
	rejections := make([]store.Rejection, 200)
	for i := range rejections {
		rejections[i] = store.Rejection{At: time.Now().Add(-time.Duration(i) * time.Second), Source: "stripe", Reason: "bad signature", BodySize: 512}
	}
	if err := bd.store.RecordRejections(ctx, rejections); err != nil {
		b.Fatal(err)
	}
	for i := range 20 {
		if err := bd.store.SetPaused(ctx, "late", i%2 == 0, "ops", time.Now()); err != nil {
			b.Fatal(err)
		}
	}

	// Log in without following the redirect: the overview is measured
	// on its own.
	c := bd.anonymous(b)
	c.http.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	if status, page := c.submitLogin(adminToken); status != http.StatusSeeOther {
		b.Fatalf("log in: %d %s", status, page)
	}
	handler := bd.srv.Config.Handler
	cookies := c.http.Jar.Cookies(mustURL(b, bd.srv.URL))
	cases := []struct{ name, path string }{
		{"overview-hour", "/"},
		{"overview-day", "/?range=day"},
		{"events-newest", "/events"},
		{"events-source", "/events?source=github"},
		{"events-source-type", "/events?source=github&type=push"},
		{"events-deep", "/events?cursor=" + seeded.MidID},
		{"events-provider-id", "/events?q=" + seeded.NewestProviderID},
		// The first 8 characters of an id: the events of about a second.
		{"events-id-prefix", "/events?q=" + seeded.MidID[:8]},
		// One body in a thousand holds it: the page reads its scan.
		{"events-text", "/events?" + url.Values{"text": {`"obj_777"`}}.Encode()},
	}
	for _, st := range store.Statuses {
		cases = append(cases, struct{ name, path string }{"events-status-" + string(st), "/events?status=" + string(st)})
	}
	cases = append(cases, []struct{ name, path string }{
		{"event", "/events/" + seeded.MidID},
		{"event-raw", "/events/" + seeded.MidID + "/raw"},
		{"failures", "/failures"},
		{"destinations", "/destinations"},
		{"rejections", "/rejections"},
		{"audit", "/audit"},
		{"jobs", "/jobs"},
		{"replay-form", "/replay?status=dead"},
	}...)
	for _, bc := range cases {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				req := httptest.NewRequest(http.MethodGet, bc.path, nil)
				for _, ck := range cookies {
					req.AddCookie(ck)
				}
				rec := httptest.NewRecorder()
				handler.ServeHTTP(rec, req)
				if rec.Code != http.StatusOK {
					b.Fatalf("GET %s: %d", bc.path, rec.Code)
				}
			}
		})
	}
}
