package adminapi_test

import (
	"context"
	"log/slog"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/hookrelay/hookrelay/internal/adminapi"
	"github.com/hookrelay/hookrelay/internal/adminwire"
	"github.com/hookrelay/hookrelay/internal/store/storeopen"
	"github.com/hookrelay/hookrelay/internal/store/storetest"
	"github.com/hookrelay/hookrelay/internal/testkit/testdb"
)

// TestSearchEvents finds events through GET /api/v1/events by the start
// of their provider or hookrelay id (q) and by text in their payload
// (text), which reports how far it read; both at once, or scan without
// text, is a 400.
func TestSearchEvents(t *testing.T) {
	forEachDriver(t, func(t *testing.T, driver testdb.Driver) {
		b := setup(t, driver, nil)
		a := b.customerEvent(t, "evt_1NabX", "cus_123")
		c := b.customerEvent(t, "evt_1NacY", "cus_456")
		d := b.customerEvent(t, "evt_2Zzz", "cus_123")
		gh := b.send(t, webhook{source: "github", id: "evt_1Nad-gh", typ: "push"})

		for _, tc := range []struct {
			query string
			want  []string
		}{
			{"q=evt_1N", []string{gh, c, a}},
			{"q=evt_1N&source=stripe", []string{c, a}},
			{"q=evt_2Zzz", []string{d}},
			{"q=" + strings.ToLower(c[:20]), []string{c}},
			{"q=nothing", nil},
			{"text=cus_123", []string{d, a}},
			{"text=" + url.QueryEscape(`"customer":"cus_456"`), []string{c}},
			{"text=CUS_123", nil},
			{"text=cus_123&source=github", nil},
		} {
			var page adminwire.EventList
			wantStatus(t, tc.query, b.call(t, readToken, "GET", "/api/v1/events?"+tc.query, nil, &page), 200)
			if got := ids(page); !slices.Equal(got, tc.want) {
				t.Errorf("?%s found %v, want %v", tc.query, got, tc.want)
			}
			if strings.HasPrefix(tc.query, "q=") != (page.TextSearch == nil) {
				t.Errorf("?%s: text_search %+v", tc.query, page.TextSearch)
			}
		}

		// Reading two events a page: gh, d; then c, a.
		var page adminwire.EventList
		wantStatus(t, "scan", b.call(t, readToken, "GET", "/api/v1/events?text=cus_123&scan=2", nil, &page), 200)
		ts := page.TextSearch
		if got := ids(page); !slices.Equal(got, []string{d}) || ts == nil || ts.Scanned != 2 || ts.ScanLimit != 2 ||
			ts.Exhausted || ts.OldestScanned == nil || page.NextCursor != d {
			t.Fatalf("first page of 2 read: %v, %+v, next %q; want %s, 2 read down to it", got, ts, page.NextCursor, d)
		}
		wantStatus(t, "scan", b.call(t, readToken, "GET", "/api/v1/events?text=cus_123&scan=2&cursor="+page.NextCursor, nil, &page), 200)
		if got := ids(page); !slices.Equal(got, []string{a}) || page.TextSearch.Scanned != 2 {
			t.Errorf("second page of 2 read: %v, %+v; want %s", got, page.TextSearch, a)
		}

		for _, query := range []string{"q=evt&text=cus", "scan=10", "q=evt&scan=10", "scan=0&text=x", "text=" + strings.Repeat("x", 1025)} {
			wantStatus(t, query, b.call(t, readToken, "GET", "/api/v1/events?"+query, nil, nil), 400)
		}
	})
}

// TestSearchSealedPayloads: with payload keys, a text search is refused
// with a 409 that says why and what to do instead; a search by id works.
func TestSearchSealedPayloads(t *testing.T) {
	forEachDriver(t, func(t *testing.T, driver testdb.Driver) {
		b := setup(t, driver, nil)
		id := b.customerEvent(t, "evt_sealed", "cus_123")
		keyed, err := storeopen.OpenWith(context.Background(), b.url, storeopen.Options{Keys: storetest.TestKeys(t, "k1")}, slog.New(slog.DiscardHandler))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = keyed.Close() })
		srv := httptest.NewServer(adminapi.New(adminapi.Options{Store: keyed, Config: b.cfg, Logger: slog.New(slog.DiscardHandler)}))
		t.Cleanup(srv.Close)

		var e adminwire.Error
		wantStatus(t, "text", call(t, srv.URL, readToken, "GET", "/api/v1/events?text=cus_123", nil, &e), 409)
		if !strings.Contains(e.Error, "encrypted") || !strings.Contains(e.Error, "q") {
			t.Errorf("409 says %q; want why and what to do instead", e.Error)
		}
		var page adminwire.EventList
		wantStatus(t, "q", call(t, srv.URL, readToken, "GET", "/api/v1/events?q=evt_sea", nil, &page), 200)
		if got := ids(page); !slices.Equal(got, []string{id}) {
			t.Errorf("q found %v, want %s", got, id)
		}
	})
}
