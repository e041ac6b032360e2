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

	"github.com/hookrelay/hookrelay/internal/store"
	"github.com/hookrelay/hookrelay/internal/testkit/bulkseed"
	"github.com/hookrelay/hookrelay/internal/testkit/testdb"
)

// benchFailuresEnv overrides how many events BenchmarkFailuresPage
// stores.
const benchFailuresEnv = "HOOKRELAY_BENCH_FAILURES_EVENTS"

// benchFailed are how a fifth of BenchmarkFailuresPage's deliveries
// failed, each a twentieth of them: two ways of failed, two of dead.
var benchFailed = []bulkseed.Failed{
	{Source: "stripe", Type: "invoice.f503", Status: "failed", StatusCode: 503, Error: "status 503"},
	{Source: "stripe", Type: "invoice.ftimeout", Status: "failed", Error: "timeout after 10s"},
	{Source: "stripe", Type: "invoice.drefused", Status: "dead", Error: "dial tcp 10.0.0.7:443: connect: connection refused"},
	{Source: "stripe", Type: "invoice.dtls", Status: "dead", Error: "tls: failed to verify certificate: x509: certificate signed by unknown authority"},
}

// BenchmarkFailuresPage groups the failures of a log of 1 000 000 events
// (HOOKRELAY_BENCH_FAILURES_EVENTS overrides it), each with one delivery
// to billing: a fifth failed or dead (benchFailed), the rest done. It
// measures the store's grouping, GET /api/v1/failures and the console's
// Failures page, on each driver.
func BenchmarkFailuresPage(b *testing.B) {
	n := 1_000_000
	if v := os.Getenv(benchFailuresEnv); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil {
			b.Fatalf("%s: %v", benchFailuresEnv, err)
		}
	}
	for _, d := range testdb.Drivers() {
		b.Run(d.Name, func(b *testing.B) {
			b.Run(fmt.Sprintf("events=%d", n), func(b *testing.B) { benchFailures(b, d, n) })
		})
	}
}

// benchFailures seeds n events on driver d as BenchmarkFailuresPage says
// and measures each way of reading their failures.
func benchFailures(b *testing.B, d testdb.Driver, n int) {
	bd := setup(b, d)
	var routes []bulkseed.Route
	for i := range 16 {
		routes = append(routes, bulkseed.Route{Source: "stripe", Type: fmt.Sprintf("invoice.ok%d", i), Destination: "billing"})
	}
	for _, f := range benchFailed {
		routes = append(routes, bulkseed.Route{Source: f.Source, Type: f.Type, Destination: "billing"})
	}
	start := time.Now()
	step := 10 * time.Millisecond
	if _, err := bulkseed.Seed(context.Background(), bd.url, bulkseed.Spec{
		N: n, First: time.Now().UTC().Add(-time.Duration(n) * step), Step: step, Routes: routes, Done: true, Failed: benchFailed,
	}); err != nil {
		b.Fatal(err)
	}
	b.Logf("seeded %d events, %d failing, on %s in %v", n, n/5, d.Name, time.Since(start).Round(time.Second))

	c := bd.anonymous(b)
	c.http.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	if status, page := c.submitLogin(adminToken); status != http.StatusSeeOther {
		b.Fatalf("log in: %d %s", status, page)
	}
	handler := bd.srv.Config.Handler
	cookies := c.http.Jar.Cookies(mustURL(b, bd.srv.URL))
	get := func(b *testing.B, path string, auth bool) {
		req := httptest.NewRequest(http.MethodGet, path, nil)
		if auth {
			req.Header.Set("Authorization", "Bearer "+readToken)
		} else {
			for _, ck := range cookies {
				req.AddCookie(ck)
			}
		}
		rec := httptest.NewRecorder()
		handler.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			b.Fatalf("GET %s: %d", path, rec.Code)
		}
	}
	b.Run("store", func(b *testing.B) {
		for b.Loop() {
			gs, err := bd.store.Failures(context.Background(), store.FailuresRequest{})
			if err != nil || len(gs) != len(benchFailed) {
				b.Fatalf("Failures: %d groups, %v", len(gs), err)
			}
		}
	})
	b.Run("api", func(b *testing.B) {
		for b.Loop() {
			get(b, "/api/v1/failures", true)
		}
	})
	b.Run("page", func(b *testing.B) {
		for b.Loop() {
			get(b, "/failures", false)
		}
	})
}
