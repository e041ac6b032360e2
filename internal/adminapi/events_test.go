package adminapi_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/adminwire"
	"github.com/hookrelay/hookrelay/internal/testkit"
	"github.com/hookrelay/hookrelay/internal/testkit/testdb"
)

func TestListEvents(t *testing.T) {
	forEachDriver(t, func(t *testing.T, driver testdb.Driver) {
		b := setup(t, driver, nil)
		day := time.Now().UTC().Add(-24 * time.Hour).Truncate(time.Hour)
		b.receiveAt(day)
		paid := b.sendStripe(t, "evt_paid", "invoice.paid")
		b.receiveAt(day.Add(time.Hour))
		sub := b.sendStripe(t, "evt_sub", "customer.subscription.updated")
		b.receiveAt(day.Add(2 * time.Hour))
		push := b.send(t, webhook{source: "github", id: "gh-1", typ: "push"})
		b.receiveAt(time.Time{})

		var all adminwire.EventList
		wantStatus(t, "list", b.call(t, readToken, "GET", "/api/v1/events", nil, &all), 200)
		if got := ids(all); !slices.Equal(got, []string{push, sub, paid}) {
			t.Fatalf("listed %v, want newest first %v", got, []string{push, sub, paid})
		}
		if all.NextCursor != "" {
			t.Errorf("next_cursor %q on the only page", all.NextCursor)
		}
		ev := all.Events[2]
		if ev.Source != "stripe" || ev.ProviderEventID != "evt_paid" || ev.Type != "invoice.paid" || ev.IDOrigin == "" ||
			!ev.ReceivedAt.Equal(day) || ev.SignatureSlot == nil || *ev.SignatureSlot != 0 || ev.BodySize == 0 {
			t.Errorf("event = %+v", ev)
		}
		var dests []string
		for _, d := range ev.Deliveries {
			dests = append(dests, d.Destination+":"+d.Status)
			if d.ID == 0 {
				t.Errorf("delivery %s has no id", d.Destination)
			}
		}
		if want := []string{"billing:pending", "dev-alice:pending", "dev-bob:pending"}; !slices.Equal(dests, want) {
			t.Errorf("deliveries %v, want %v", dests, want)
		}

		for _, tc := range []struct {
			query string
			want  []string
		}{
			{"source=stripe", []string{sub, paid}},
			{"type=invoice.*", []string{paid}},
			{"type=customer.*.updated", []string{sub}},
			{"destination=billing", []string{paid}},
			{"destination=dev-bob&status=pending", []string{sub, paid}},
			{"status=done", nil},
			{"since=" + url.QueryEscape(day.Add(time.Hour).Format(time.RFC3339)), []string{push, sub}},
			{"until=" + url.QueryEscape(day.Add(time.Hour).Format(time.RFC3339)), []string{paid}},
			{"limit=1", []string{push}},
			// Times as an operator writes them, as the CLI and the
			// console pass them on.
			{"since=-2d", []string{push, sub, paid}},
			{"since=-1h", nil},
			{"until=now", []string{push, sub, paid}},
			{"since=" + day.Format(time.DateOnly) + "&until=-2h", []string{push, sub, paid}},
		} {
			var page adminwire.EventList
			wantStatus(t, tc.query, b.call(t, readToken, "GET", "/api/v1/events?"+tc.query, nil, &page), 200)
			if got := ids(page); !slices.Equal(got, tc.want) {
				t.Errorf("?%s listed %v, want %v", tc.query, got, tc.want)
			}
		}

		// The JSON carries the contract's names, and null where a time
		// does not apply.
		var raw struct{ Events []map[string]any }
		wantStatus(t, "list raw", b.call(t, readToken, "GET", "/api/v1/events?limit=1", nil, &raw), 200)
		for _, k := range []string{"id", "source", "provider_event_id", "id_origin", "type", "received_at", "occurred_at", "signature_slot", "body_size", "deliveries"} {
			if _, ok := raw.Events[0][k]; !ok {
				t.Errorf("listed event lacks %q: %v", k, raw.Events[0])
			}
		}
		if v := raw.Events[0]["occurred_at"]; v != nil {
			t.Errorf("occurred_at of an event without one = %v, want null", v)
		}

		for _, bad := range []string{"limit=0", "limit=x", "since=yesterday", "since=-0s", "until=-2x", "status=lost", "sorce=stripe",
			"type=" + url.QueryEscape("[ab]*")} {
			var e adminwire.Error
			if got := b.call(t, readToken, "GET", "/api/v1/events?"+bad, nil, &e); got != 400 {
				t.Errorf("?%s: %d, want 400", bad, got)
			}
		}
	})
}

func ids(l adminwire.EventList) []string {
	var out []string
	for _, e := range l.Events {
		out = append(out, e.ID)
	}
	return out
}

// TestPaginationUnderConcurrentInserts pages through the listing while
// events keep arriving: every event that existed at the first page is
// listed exactly once, newest first.
func TestPaginationUnderConcurrentInserts(t *testing.T) {
	forEachDriver(t, func(t *testing.T, driver testdb.Driver) {
		b := setup(t, driver, nil)
		var before []string
		for i := range 25 {
			before = append(before, b.sendStripe(t, fmt.Sprintf("evt_page_%02d", i), "invoice.paid"))
		}

		stop := make(chan struct{})
		var wg sync.WaitGroup
		var inserted atomic.Int64
		wg.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				if _, err := b.post(webhook{source: "stripe", id: fmt.Sprintf("evt_during_%03d", i), typ: "invoice.paid"}); err != nil {
					t.Error(err)
					return
				}
				inserted.Add(1)
			}
		})

		seen := map[string]bool{}
		var listed []string
		cursor := ""
		for pages := 0; ; pages++ {
			if pages > 100 {
				t.Fatal("more than 100 pages")
			}
			var page adminwire.EventList
			wantStatus(t, "page", b.call(t, readToken, "GET", "/api/v1/events?source=stripe&limit=4&cursor="+url.QueryEscape(cursor), nil, &page), 200)
			for _, e := range page.Events {
				if seen[e.ID] {
					t.Fatalf("event %s listed twice", e.ID)
				}
				seen[e.ID] = true
				listed = append(listed, e.ID)
			}
			if page.NextCursor == "" {
				break
			}
			cursor = page.NextCursor
			// An insert lands between this page and the next.
			n := inserted.Load()
			testkit.Eventually(t, 10*time.Second, "an event inserted between two pages", func() error {
				return testkit.Check(inserted.Load() > n, "%d inserted", n)
			})
		}
		close(stop)
		wg.Wait()

		for _, id := range before {
			if !seen[id] {
				t.Errorf("event %s, stored before the first page, was not listed", id)
			}
		}
		if !slices.IsSortedFunc(listed, func(a, b string) int { return -compare(a, b) }) {
			t.Errorf("listing is not newest first: %v", listed)
		}
		t.Logf("%d events inserted while paging, %d listed", inserted.Load(), len(listed))
	})
}

func compare(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func TestShowEvent(t *testing.T) {
	forEachDriver(t, func(t *testing.T, driver testdb.Driver) {
		b := setup(t, driver, nil)
		id := b.sendStripe(t, "evt_show", "invoice.paid")

		// One failed attempt for dev-alice, through claim and ack.
		var c adminwire.Claimed
		wantStatus(t, "claim", b.call(t, aliceToken, "POST", "/api/v1/destinations/dev-alice/claim", nil, &c), 200)
		d := c.Deliveries[0]
		wantStatus(t, "ack", b.call(t, aliceToken, "POST", fmt.Sprintf("/api/v1/deliveries/%d/ack", d.ID),
			adminwire.AckRequest{Outcome: "failed", Error: "local 500", StatusCode: 500, LeaseToken: d.LeaseToken}, nil), 200)

		var ev adminwire.EventDetail
		wantStatus(t, "show", b.call(t, readToken, "GET", "/api/v1/events/"+id, nil, &ev), 200)
		if ev.ID != id || ev.ProviderEventID != "evt_show" || ev.ContentType != "application/json" {
			t.Errorf("event = %+v", ev)
		}
		// The signature is shown masked: with the body, it is all a replay
		// of a body-only scheme needs.
		if sig := ev.Headers["Stripe-Signature"]; len(sig) != 1 || sig[0] != "[masked]" {
			t.Errorf("Stripe-Signature = %q, want it present and masked", sig)
		}
		var ver adminwire.Verification
		wantStatus(t, "verify", b.call(t, readToken, "POST", "/api/v1/events/"+id+"/verify", nil, &ver), 200)
		if !ver.Valid {
			t.Errorf("the stored signature no longer verifies: %+v", ver)
		}
		if len(ev.Deliveries) != 3 {
			t.Fatalf("%d deliveries, want 3", len(ev.Deliveries))
		}
		for _, dl := range ev.Deliveries {
			switch dl.Destination {
			case "dev-alice":
				if dl.Status != "failed" || dl.Attempts != 1 || dl.LastError != "local 500" || dl.LastStatusCode != 500 ||
					dl.NextAttemptAt == nil || dl.CreatedAt.IsZero() || len(dl.AttemptLog) != 1 {
					t.Errorf("dev-alice delivery = %+v", dl)
				} else if a := dl.AttemptLog[0]; a.StatusCode != 500 || a.Error != "local 500" || a.AttemptedAt.IsZero() ||
					a.RequestHeaders != nil || a.ResponseHeaders != nil {
					t.Errorf("dev-alice attempt = %+v", a)
				}
			default:
				if dl.Status != "pending" || len(dl.AttemptLog) != 0 || dl.FinishedAt != nil || dl.LeaseUntil != nil {
					t.Errorf("%s delivery = %+v", dl.Destination, dl)
				}
			}
		}
		var e adminwire.Error
		wantStatus(t, "show unknown", b.call(t, readToken, "GET", "/api/v1/events/01NOSUCHEVENT", nil, &e), 404)
	})
}

// TestRawEvent checks that raw gives the stored bytes exactly, with the
// Content-Type they arrived with.
func TestRawEvent(t *testing.T) {
	forEachDriver(t, func(t *testing.T, driver testdb.Driver) {
		b := setup(t, driver, nil)
		body := []byte("{\n  \"id\": \"evt_raw\",\r\n  \"type\": \"invoice.paid\", \"note\": \"caf\u00e9 \\u00e9\\n\", \"pad\": \"\\t\"  }  \n")
		id := b.send(t, webhook{source: "stripe", id: "evt_raw", typ: "invoice.paid", body: body, contentType: "application/json; charset=utf-8"})
		form := []byte("payload=%7B%22id%22%3A1%7D&x=\xff\x00")
		formID := b.send(t, webhook{source: "github", id: "gh-raw", typ: "push", body: form, contentType: "application/x-www-form-urlencoded"})

		for _, tc := range []struct {
			id, ct string
			body   []byte
		}{{id, "application/json; charset=utf-8", body}, {formID, "application/x-www-form-urlencoded", form}} {
			resp := do(t, b.api.URL, readToken, "GET", "/api/v1/events/"+tc.id+"/raw", nil)
			got, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 || !bytes.Equal(got, tc.body) {
				t.Errorf("raw %s: %d %q, want %q", tc.id, resp.StatusCode, got, tc.body)
			}
			if ct := resp.Header.Get("Content-Type"); ct != tc.ct {
				t.Errorf("raw %s: Content-Type %q, want %q", tc.id, ct, tc.ct)
			}
			if resp.Header.Get("X-Content-Type-Options") != "nosniff" {
				t.Errorf("raw %s may be sniffed", tc.id)
			}
		}
		resp := do(t, b.api.URL, readToken, "GET", "/api/v1/events/01NOSUCHEVENT/raw", nil)
		var e adminwire.Error
		_ = json.NewDecoder(resp.Body).Decode(&e)
		resp.Body.Close()
		if resp.StatusCode != 404 || e.Error == "" {
			t.Errorf("raw of an unknown event: %d %+v, want 404 with an error", resp.StatusCode, e)
		}
	})
}
