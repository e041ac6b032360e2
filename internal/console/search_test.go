package console_test

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/adminapi"
	"github.com/hookrelay/hookrelay/internal/console"
	"github.com/hookrelay/hookrelay/internal/store"
	"github.com/hookrelay/hookrelay/internal/store/storeopen"
	"github.com/hookrelay/hookrelay/internal/store/storetest"
	"github.com/hookrelay/hookrelay/internal/testkit/bulkseed"
)

// The suite's cases of search and of attempt headers.
func init() {
	suite = append(suite, []struct {
		name string
		run  func(t *testing.T, b *bundle)
	}{
		{"find by the start of an id or by text in the payload", testFindEvents},
		{"a text search of encrypted payloads says why it cannot", testSearchSealed},
		{"a text search that reads its whole scan says where it stopped", testSearchScanLimit},
		{"a failed attempt shows its headers, folded", testAttemptHeaders},
	}...)
}

// customerBody is a Stripe event's body that names a customer.
func customerBody(id, customer string) []byte {
	return []byte(`{"id":"` + id + `","type":"invoice.paid","data":{"object":{"customer":"` + customer + `"}}}`)
}

func testFindEvents(t *testing.T, b *bundle) {
	one := b.ingest(t, seed{source: "stripe", id: "evt_wanted_1", typ: "invoice.paid", body: customerBody("evt_wanted_1", "cus_777")})
	b.ingest(t, seed{source: "stripe", id: "evt_wanted_2", typ: "invoice.paid", body: customerBody("evt_wanted_2", "cus_888")})
	b.ingest(t, seed{source: "stripe", id: "evt_other", typ: "invoice.paid", body: customerBody("evt_other", "cus_888")})
	c := b.login(t, adminToken)

	status, page := c.get("/events?q=evt_wanted")
	wantPage(t, "q prefix", status, page, http.StatusOK, "evt_wanted_1", "evt_wanted_2", "Replay these")
	if strings.Contains(page, "evt_other") {
		t.Errorf("q=evt_wanted lists evt_other")
	}
	status, page = c.get("/events?q=" + strings.ToLower(one[:16]))
	wantPage(t, "hookrelay id prefix", status, page, http.StatusOK, "evt_wanted_1")

	status, page = c.get("/events?text=cus_777")
	wantPage(t, "text", status, page, http.StatusOK, "evt_wanted_1", `id="searched"`, "Searched all 3 events the filters select", "cus_777")
	for _, absent := range []string{"evt_wanted_2", "evt_other", "Replay these"} {
		if strings.Contains(page, absent) {
			t.Errorf("text=cus_777 shows %q", absent)
		}
	}
	status, page = c.get("/events?text=cus_888&source=stripe")
	wantPage(t, "text with a filter", status, page, http.StatusOK, "evt_other", "evt_wanted_2", `value="cus_888"`)
	status, page = c.get("/events?q=evt&text=cus")
	wantPage(t, "q and text", status, page, http.StatusBadRequest, "not both")

	// A set named by an id prefix is replayed as listed; a text search
	// names no set.
	status, page = c.post("/replay", url.Values{"q": {"evt_wanted"}})
	wantPage(t, "replay q dry run", status, page, http.StatusOK, "4 deliveries match", "whose id starts with evt_wanted")
	status, page = c.post("/replay", url.Values{"text": {"cus_777"}})
	wantPage(t, "replay text", status, page, http.StatusBadRequest, "names no set to replay")
}

func testSearchSealed(t *testing.T, b *bundle) {
	b.ingest(t, seed{source: "stripe", id: "evt_sealed", typ: "invoice.paid", body: customerBody("evt_sealed", "cus_1")})
	keyed, err := storeopen.OpenWith(context.Background(), b.url, storeopen.Options{Keys: storetest.TestKeys(t, "k1")}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = keyed.Close() })
	svc := adminapi.NewService(adminapi.Options{Store: keyed, Config: b.cfg, Logger: slog.New(slog.DiscardHandler)})
	srv := httptest.NewServer(console.New(console.Options{Service: svc, Store: keyed, Logger: slog.New(slog.DiscardHandler)}))
	t.Cleanup(srv.Close)
	sealed := &bundle{driver: b.driver, url: b.url, store: keyed, cfg: b.cfg, srv: srv, logs: b.logs}
	c := sealed.login(t, readToken)
	status, page := c.get("/events?text=cus_1")
	wantPage(t, "text search, sealed", status, page, http.StatusConflict, "encrypted at rest", "search by id")
	status, page = c.get("/events?q=evt_sealed")
	wantPage(t, "q, sealed", status, page, http.StatusOK, "evt_sealed")
}

func testAttemptHeaders(t *testing.T, b *bundle) {
	id := b.ingest(t, seed{source: "stripe", id: "evt_headers", typ: "invoice.paid", destinations: []string{"billing"}})
	ctx := context.Background()
	now := time.Now()
	claims, err := b.store.ClaimDeliveries(ctx, store.ClaimRequest{Destination: "billing", Max: 1, Lease: time.Minute, Now: now})
	if err != nil || len(claims) != 1 {
		t.Fatalf("claim: %d claims, %v", len(claims), err)
	}
	err = b.store.CompleteDelivery(ctx, store.Completion{
		DeliveryID: claims[0].Delivery.ID, LeaseToken: claims[0].LeaseToken, Status: store.StatusFailed, Now: now,
		Attempt: store.Attempt{AttemptedAt: now, StatusCode: 503, Error: "status 503",
			RequestHeaders:  map[string][]string{"Webhook-Id": {id}, "Webhook-Signature": {"v1,K5oZfzN9…"}},
			ResponseHeaders: map[string][]string{"X-Request-Id": {"req_<42>"}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	c := b.login(t, readToken)
	status, page := c.get("/events/" + id)
	wantPage(t, "event", status, page, http.StatusOK, `<details class="attempt-headers"`, "Headers: 2 sent, 1 received",
		"Webhook-Signature", "v1,K5oZfzN9…", "X-Request-Id", "req_&lt;42&gt;")
	if strings.Contains(page, "<details class=\"attempt-headers\" open") {
		t.Errorf("attempt headers are shown unfolded")
	}
}

// testSearchScanLimit searches text in a log longer than a page's scan:
// the page says how many of the newest events it read, and that the next
// page reads older ones.
func testSearchScanLimit(t *testing.T, b *bundle) {
	n := store.DefaultScanLimit + 50
	if _, err := bulkseed.Seed(context.Background(), b.url, bulkseed.Spec{N: n, First: time.Now().UTC().Add(-time.Hour), Step: time.Millisecond,
		Routes: []bulkseed.Route{{Source: "stripe", Type: "invoice.paid", Destination: "billing"}}}); err != nil {
		t.Fatal(err)
	}
	c := b.login(t, adminToken)
	status, page := c.get("/events?" + url.Values{"text": {`"obj_777"`}}.Encode())
	wantPage(t, "text past the scan", status, page, http.StatusOK, "evt_000009777", "Searched the 10\u00a0000 newest events",
		"A page reads at most 10\u00a0000 events: the next page searches older ones.")
}
