package adminapi_test

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/adminwire"
	"github.com/hookrelay/hookrelay/internal/testkit/testdb"
)

// customerEvent posts a Stripe event whose data.object.customer is
// customer and returns its hookrelay id.
func (b *testBundle) customerEvent(t *testing.T, id, customer string) string {
	t.Helper()
	body := fmt.Appendf(nil, `{"id":%q,"type":"invoice.paid","data":{"object":{"id":"in_%s","customer":%q,"email":"someone@example.com"}}}`, id, id, customer)
	return b.send(t, webhook{source: "stripe", id: id, typ: "invoice.paid", body: body})
}

// purgeCall posts a purge, first as a dry run, and checks that the dry
// run's count is what the purge then purged.
func (b *testBundle) purgeCall(t *testing.T, req map[string]any, want int64) adminwire.PurgeResult {
	t.Helper()
	req["dry_run"] = true
	var dry, res adminwire.PurgeResult
	wantStatus(t, "purge dry run", b.call(t, adminToken, "POST", "/api/v1/purge", req, &dry), 200)
	req["dry_run"] = false
	wantStatus(t, "purge", b.call(t, adminToken, "POST", "/api/v1/purge", req, &res), 200)
	if dry.Matched != want || dry.Purged != 0 || !dry.DryRun || res.Matched != want || res.Purged != want || res.DryRun {
		t.Errorf("purge %v: dry run %+v, then %+v; want %d matched by both, purged by the second", req, dry, res, want)
	}
	return res
}

// TestPurgeSelectors purges by id, by provider id and by a value at a
// JSON path, each counted alike by its dry run, and checks what is left:
// a tombstone, a 410 for the payload, a refused replay, an audit row, and
// no delivery claimable.
func TestPurgeSelectors(t *testing.T) {
	forEachDriver(t, func(t *testing.T, driver testdb.Driver) {
		b := setup(t, driver, nil)
		byID := b.customerEvent(t, "evt_by_id", "cus_1")
		byProvider := b.customerEvent(t, "evt_by_provider", "cus_2")
		var subject []string
		for i := range 5 {
			subject = append(subject, b.customerEvent(t, fmt.Sprintf("evt_subject_%d", i), "cus_123"))
		}
		kept := b.customerEvent(t, "evt_kept", "cus_1234")

		res := b.purgeCall(t, map[string]any{"ids": []string{byID, byID}, "reason": "erasure request 1"}, 1)
		if res.DeliveriesEnded != 3 { // billing, dev-alice, dev-bob
			t.Errorf("purge by id ended %d deliveries, want 3", res.DeliveriesEnded)
		}
		b.purgeCall(t, map[string]any{"source": "stripe", "provider_event_id": "evt_by_provider", "reason": "erasure request 2"}, 1)
		res = b.purgeCall(t, map[string]any{"source": "stripe", "path": "data.object.customer", "value": "cus_123",
			"since": time.Now().Add(-time.Hour).UTC().Format(time.RFC3339), "reason": "erasure request 3"}, 5)
		if res.Scanned != 8 {
			t.Errorf("path search scanned %d events, want 8", res.Scanned)
		}
		// Once purged, nothing matches any more; by id, it is counted apart.
		b.purgeCall(t, map[string]any{"path": "data.object.customer", "value": "cus_123", "reason": "again"}, 0)
		var again adminwire.PurgeResult
		wantStatus(t, "purge again", b.call(t, adminToken, "POST", "/api/v1/purge", map[string]any{"ids": []string{byID}, "reason": "again"}, &again), 200)
		if again.Matched != 0 || again.AlreadyPurged != 1 {
			t.Errorf("purging a purged event = %+v; want 0 matched, 1 already purged", again)
		}

		for _, id := range append([]string{byID, byProvider}, subject...) {
			var ev adminwire.EventDetail
			wantStatus(t, "show "+id, b.call(t, readToken, "GET", "/api/v1/events/"+id, nil, &ev), 200)
			if ev.Purged == nil || ev.Purged.PurgedBy != "ops" || !strings.HasPrefix(ev.Purged.Reason, "erasure request") || ev.BodySize != 0 || len(ev.Headers) != 0 {
				t.Errorf("purged event %s shows %+v; want a tombstone by ops, no body, no headers", id, ev)
			}
			for _, d := range ev.Deliveries {
				if d.Status != "purged" {
					t.Errorf("purged event %s has a %s delivery to %s", id, d.Status, d.Destination)
				}
			}
			wantStatus(t, "raw of "+id, b.call(t, readToken, "GET", "/api/v1/events/"+id+"/raw", nil, nil), 410)
			wantStatus(t, "verify of "+id, b.call(t, readToken, "POST", "/api/v1/events/"+id+"/verify", nil, nil), 410)
		}
		var kev adminwire.EventDetail
		wantStatus(t, "show kept", b.call(t, readToken, "GET", "/api/v1/events/"+kept, nil, &kev), 200)
		if kev.Purged != nil || kev.BodySize == 0 {
			t.Errorf("the kept event shows %+v; want it untouched", kev)
		}

		var e adminwire.Error
		wantStatus(t, "replay of a purged event", b.call(t, adminToken, "POST", "/api/v1/replay", map[string]any{"ids": []string{byID}}, &e), 409)
		if !strings.Contains(e.Error, byID) || !strings.Contains(e.Error, "purged") {
			t.Errorf("replay refusal = %q; want it to name the event and say it was purged", e.Error)
		}
		var rep adminwire.ReplayResult
		wantStatus(t, "replay of the source", b.call(t, adminToken, "POST", "/api/v1/replay", map[string]any{"source": "stripe", "destination": "dev-alice"}, &rep), 200)
		if rep.Matched != 1 {
			t.Errorf("replay of the source matched %d deliveries, want only the kept event's", rep.Matched)
		}

		// A pull consumer finds the kept event only.
		var claimed adminwire.Claimed
		wantStatus(t, "claim", b.call(t, aliceToken, "POST", "/api/v1/destinations/dev-alice/claim?max=100", nil, &claimed), 200)
		if len(claimed.Deliveries) != 1 || claimed.Deliveries[0].EventID != kept {
			t.Errorf("claimed %+v; want the kept event only", claimed.Deliveries)
		}
		var stats adminwire.Stats
		wantStatus(t, "stats", b.call(t, readToken, "GET", "/api/v1/stats", nil, &stats), 200)
		if got := stats.Destinations["billing"].Purged; got != 7 {
			t.Errorf("stats count %d purged billing deliveries, want 7", got)
		}

		var log adminwire.AuditLog
		wantStatus(t, "audit", b.call(t, readToken, "GET", "/api/v1/audit?limit=100", nil, &log), 200)
		purges, valueMAC := 0, ""
		for _, en := range log.Entries {
			if en.Kind != "purge" {
				continue
			}
			purges++
			if en.Actor != "ops" || en.Detail["reason"] == nil {
				t.Errorf("purge audit row %+v; want the actor and the reason", en)
			}
			if en.Detail["path"] == nil {
				continue
			}
			// The value's keyed hash: the same for every purge of the
			// value, and not its plain SHA-256, which a reader of the
			// log could test guesses against.
			mac, _ := en.Detail["value_hmac"].(string)
			plain := sha256.Sum256([]byte("cus_123"))
			switch {
			case mac == "" || en.Detail["value"] != nil || en.Detail["value_sha256"] != nil:
				t.Errorf("path purge audit row %+v; want the value's keyed hash alone", en.Detail)
			case mac == hex.EncodeToString(plain[:]):
				t.Errorf("path purge audit row keeps the value's plain SHA-256 %s", mac)
			case valueMAC != "" && mac != valueMAC:
				t.Errorf("two purges of one value record %s and %s: want one keyed hash", valueMAC, mac)
			}
			valueMAC = mac
		}
		if purges != 9 { // four purges with their dry runs, and one without
			t.Errorf("audit log has %d purge rows, want 9", purges)
		}
		if logs := b.logs.String(); strings.Contains(logs, "cus_123") || strings.Contains(logs, "someone@example.com") || strings.Contains(logs, "erasure request") {
			t.Errorf("the admin API's logs carry a purge's value or reason:\n%s", logs)
		}
		if !strings.Contains(b.logs.String(), `"path":"/api/v1/purge","status":200`) {
			t.Errorf("no audit line for the purges:\n%s", b.logs.String())
		}
	})
}

// TestPurgeRefusals checks the requests a purge refuses before doing
// anything.
func TestPurgeRefusals(t *testing.T) {
	forEachDriver(t, func(t *testing.T, driver testdb.Driver) {
		b := setup(t, driver, nil)
		id := b.customerEvent(t, "evt_refusals", "cus_1")
		for _, c := range []struct {
			what string
			body map[string]any
			want int
		}{
			{"no reason", map[string]any{"ids": []string{id}}, 400},
			{"a blank reason", map[string]any{"ids": []string{id}, "reason": "  "}, 400},
			{"no selector", map[string]any{"reason": "x"}, 400},
			{"two selectors", map[string]any{"ids": []string{id}, "path": "data.object.customer", "value": "cus_1", "reason": "x"}, 400},
			{"a path without value", map[string]any{"path": "data.object.customer", "reason": "x"}, 400},
			{"a bad path", map[string]any{"path": "data..customer", "value": "cus_1", "reason": "x"}, 400},
			{"a provider id without source", map[string]any{"provider_event_id": "evt_refusals", "reason": "x"}, 400},
			{"ids with a window", map[string]any{"ids": []string{id}, "since": "2026-01-01T00:00:00Z", "reason": "x"}, 400},
			{"an unknown id", map[string]any{"ids": []string{id, "01NOPE"}, "reason": "x"}, 404},
			{"an unknown provider id", map[string]any{"source": "stripe", "provider_event_id": "evt_nope", "reason": "x"}, 404},
			{"an unknown field", map[string]any{"ids": []string{id}, "reason": "x", "customer": "cus_1"}, 400},
		} {
			wantStatus(t, c.what, b.call(t, adminToken, "POST", "/api/v1/purge", c.body, nil), c.want)
		}
		wantStatus(t, "a read token", b.call(t, readToken, "POST", "/api/v1/purge", map[string]any{"ids": []string{id}, "reason": "x"}, nil), 403)
		wantStatus(t, "a consumer token", b.call(t, aliceToken, "POST", "/api/v1/purge", map[string]any{"ids": []string{id}, "reason": "x"}, nil), 403)
		var ev adminwire.EventDetail
		wantStatus(t, "show", b.call(t, readToken, "GET", "/api/v1/events/"+id, nil, &ev), 200)
		if ev.Purged != nil || ev.BodySize == 0 {
			t.Errorf("after refusals the event shows %+v; want it untouched", ev)
		}
	})
}
