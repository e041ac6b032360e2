package console_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/testkit/bulkseed"
	"github.com/hookrelay/hookrelay/internal/testkit/testdb"
)

// benchEventsEnv overrides how many events BenchmarkEventsPage stores in
// its large log.
const benchEventsEnv = "HOOKRELAY_BENCH_EVENTS"

// benchBaseline is how many events the small log, the baseline measured
// in the same run, holds.
const benchBaseline = 10_000

// BenchmarkEventsPage renders the console's pages over a log of 10 000
// events (the baseline) and one of 5 000 000, on each driver. Each event
// has one pending delivery; they are received 10 ms apart up to now,
// alternately a stripe invoice.paid to billing and a github push to
// dev-alice. The events page is measured newest first, for one source,
// for one source and type, deep in the log (a cursor at its middle), by
// provider id, by a status every delivery has (pending) and by one none
// has (dead: the whole log is looked through); the overview with its hour
// and its day charts.
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
	start := time.Now()
	step := 10 * time.Millisecond
	seeded, err := bulkseed.Seed(context.Background(), bd.url, bulkseed.Spec{
		N: n, First: time.Now().UTC().Add(-time.Duration(n) * step), Step: step,
		Routes: []bulkseed.Route{{Source: "stripe", Type: "invoice.paid", Destination: "billing"},
			{Source: "github", Type: "push", Destination: "dev-alice"}},
	})
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("seeded %d events on %s in %v", n, d.Name, time.Since(start).Round(time.Second))
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
		{"events-newest", "/events"},
		{"events-source", "/events?source=github"},
		{"events-source-type", "/events?source=github&type=push"},
		{"events-deep", "/events?cursor=" + seeded.MidID},
		{"events-provider-id", "/events?q=" + seeded.NewestProviderID},
		{"events-status-pending", "/events?status=pending"},
		{"events-status-dead", "/events?status=dead"},
		{"overview-hour", "/"},
		{"overview-day", "/?range=day"},
	}
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
