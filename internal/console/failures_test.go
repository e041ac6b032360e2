package console_test

import (
	"context"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
)

// failAs claims the oldest due delivery of destination and records its
// attempt with code and text, dead or failed.
func (b *bundle) failAs(t *testing.T, destination string, status store.DeliveryStatus, code int, text string) {
	t.Helper()
	ctx, now := context.Background(), time.Now()
	cs, err := b.store.ClaimDeliveries(ctx, store.ClaimRequest{Destination: destination, Max: 1, Lease: time.Minute, Now: now})
	if err != nil || len(cs) != 1 {
		t.Fatalf("claim %s: %d deliveries, %v", destination, len(cs), err)
	}
	c := store.Completion{DeliveryID: cs[0].Delivery.ID, LeaseToken: cs[0].LeaseToken, Status: status, Now: now,
		Attempt: store.Attempt{AttemptedAt: now, StatusCode: code, Error: text}}
	if status == store.StatusFailed {
		c.NextAttemptAt = now.Add(time.Hour)
	}
	if err := b.store.CompleteDelivery(ctx, c); err != nil {
		t.Fatal(err)
	}
}

var (
	replayFormRE  = regexp.MustCompile(`(?s)<form method="post" action="/replay">(.*?)</form>`)
	hiddenFieldRE = regexp.MustCompile(`name="(\w+)" value="([^"]*)"`)
	eventsLinkRE  = regexp.MustCompile(`<a href="(/events\?[^"]+)">Events</a>`)
)

// testFailuresPage shows failures grouped by destination, kind and
// status with their counts, times and example; links each group to its
// events; and, for an admin only, replays a group through the replay
// page's dry run and confirmation.
func testFailuresPage(t *testing.T, b *bundle) {
	var ids []string
	for _, p := range []string{"evt_down_1", "evt_down_2", "evt_slow"} {
		ids = append(ids, b.ingest(t, seed{source: "stripe", id: p, typ: "invoice.paid", destinations: []string{"billing"}}))
	}
	b.ingest(t, seed{source: "stripe", id: "evt_fine", typ: "invoice.paid", destinations: []string{"billing"}})
	b.failAs(t, "billing", store.StatusDead, 503, "status 503")
	b.failAs(t, "billing", store.StatusDead, 502, "status 502")
	b.failAs(t, "billing", store.StatusFailed, 0, "timeout after 10s")

	reader := b.login(t, readToken)
	status, page := reader.get("/failures")
	wantPage(t, "failures", status, page, http.StatusOK, `aria-current="page">Failures`, "billing", "HTTP 5xx", "Timeout",
		"status 502", "timeout after 10s", `href="/events/`+ids[1]+`"`, "3 deliveries in 2 groups")
	if strings.Contains(page, "evt_fine") || mutatingButton.MatchString(page) {
		t.Errorf("a read session's failures page lists a pending delivery or offers a replay:\n%s", page)
	}
	// The group's events: its destination, its status, its window.
	links := eventsLinkRE.FindAllStringSubmatch(page, -1)
	if len(links) != 2 {
		t.Fatalf("%d events links, want one a group:\n%s", len(links), page)
	}
	var dead string
	for _, l := range links {
		if strings.Contains(l[1], "status=dead") {
			dead = html.UnescapeString(l[1])
		}
	}
	q, err := url.ParseQuery(strings.TrimPrefix(dead, "/events?"))
	if err != nil || q.Get("destination") != "billing" || q.Get("since") == "" || q.Get("until") == "" {
		t.Fatalf("the dead group's events link %q lacks its destination or window", dead)
	}
	status, page = reader.get(dead)
	wantPage(t, "the dead group's events", status, page, http.StatusOK, "evt_down_1", "evt_down_2")
	if strings.Contains(page, "evt_slow") || strings.Contains(page, "evt_fine") {
		t.Errorf("the dead group's events list another delivery's event:\n%s", page)
	}

	// Replay all: the replay page's dry run, then its confirmation.
	admin := b.login(t, adminToken)
	_, page = admin.get("/failures")
	var form url.Values
	for _, m := range replayFormRE.FindAllStringSubmatch(page, -1) {
		f := url.Values{}
		for _, kv := range hiddenFieldRE.FindAllStringSubmatch(m[1], -1) {
			if kv[1] != "csrf" {
				f.Set(kv[1], html.UnescapeString(kv[2]))
			}
		}
		if f.Get("status") == "dead" {
			form = f
		}
	}
	if form == nil || !strings.Contains(page, "Replay all…") {
		t.Fatalf("an admin's failures page offers no replay of the dead group:\n%s", page)
	}
	status, page = admin.post("/replay", form)
	wantPage(t, "replay all, dry run", status, page, http.StatusOK, "2 deliveries match: 2 would be re-armed", "Replay 2 deliveries", "every dead delivery of billing")
	b.wantReplayCounts(t, ids[0], 0)
	form.Set("confirm", "1")
	status, page = admin.post("/replay", form)
	wantPage(t, "replay all, confirmed", status, page, http.StatusOK, "2 deliveries matched, 2 re-armed")
	b.wantReplayCounts(t, ids[0], 1)
	b.wantReplayCounts(t, ids[2], 0)

	status, page = reader.get("/failures")
	wantPage(t, "failures after the replay", status, page, http.StatusOK, "Timeout", "1 delivery in 1 group")
	if strings.Contains(page, "HTTP 5xx") {
		t.Errorf("the replayed group is still listed:\n%s", page)
	}
	status, page = reader.get("/failures?destination=late")
	wantPage(t, "one destination's", status, page, http.StatusOK, `id="failures-destination"`, "No delivery to this destination is failing or dead")
	status, page = reader.get("/failures?destination=nowhere")
	wantPage(t, "an unknown destination's", status, page, http.StatusNotFound, "no destination")
}
