package browsertest

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/hookrelay/hookrelay/internal/testkit"
)

// failAnswer is the sink's answer to the provider id it fails: a 503 that
// asks for the next try in an hour, with a request id to show.
func failAnswer(w http.ResponseWriter) {
	w.Header().Set("X-Request-Id", "req_browser_42")
	w.Header().Set("Retry-After", "3600")
	http.Error(w, `{"error":"maintenance"}`, http.StatusServiceUnavailable)
}

// searchAndHeaders finds events by text in their payload and by the start
// of an id, then opens a failed attempt's headers, in the session the run
// ends with (read): what an operator does to find a customer's events and
// see why a push failed.
func searchAndHeaders(t *testing.T, b *browser, br *browserRelay) {
	t.Helper()
	b.open("/events", "#f-text")
	b.run("search the payload",
		chromedp.SendKeys(chromedp.CSS("#f-text"), "in_evt_browser_3"),
		chromedp.Submit(chromedp.CSS("#f-text")),
		chromedp.WaitVisible(chromedp.CSS("#searched")),
	)
	if rows := b.text("#events tbody"); !strings.Contains(rows, "evt_browser_3") || strings.Contains(rows, "evt_browser_1") {
		t.Fatalf("the text search lists %q", rows)
	}
	if got := b.text("#searched"); !strings.Contains(got, "Searched all") || !strings.Contains(got, "in_evt_browser_3") {
		t.Errorf("the text search says %q", got)
	}
	b.shoot("events-text-search")
	b.docShot("console-search")
	if hidden := b.outOfSight(390, "#f-q", "#f-text", "#searched"); len(hidden) > 0 {
		t.Errorf("at 390 px out of sight: %v", hidden)
	}

	b.open("/events?q="+url.QueryEscape("evt_browser_"), "#events")
	if rows := b.text("#events tbody"); !strings.Contains(rows, "evt_browser_1") || !strings.Contains(rows, "evt_browser_live") {
		t.Errorf("the id prefix lists %q", rows)
	}

	// A push that fails keeps what it sent and what it got back.
	br.sink.mu.Lock()
	br.sink.failing = "evt_browser_fail"
	br.sink.mu.Unlock()
	if status := br.send(t, "evt_browser_fail", "invoice.paid", browserSecret); status != http.StatusOK {
		t.Fatalf("ingest: %d", status)
	}
	testkit.Eventually(t, 20*time.Second, "the failing push is recorded", func() error {
		req, _ := http.NewRequest(http.MethodGet, br.admin+"/api/v1/events?q=evt_browser_fail", nil)
		req.Header.Set("Authorization", "Bearer "+readToken)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		var list struct {
			Events []struct {
				Deliveries []struct{ Status string } `json:"deliveries"`
			} `json:"events"`
		}
		return testkit.Check(json.NewDecoder(resp.Body).Decode(&list) == nil && len(list.Events) == 1 &&
			len(list.Events[0].Deliveries) == 1 && list.Events[0].Deliveries[0].Status == "failed", "not failed yet")
	})
	b.open("/events?q=evt_browser_fail", `#events tbody td.clip a`)
	b.run("open the failed event", chromedp.Click(chromedp.CSS(`#events tbody td.clip a`)), chromedp.WaitVisible(chromedp.CSS("details.attempt-headers summary")))
	b.run("unfold the headers", chromedp.Click(chromedp.CSS("details.attempt-headers summary")), chromedp.WaitVisible(chromedp.CSS("details.attempt-headers .hdrs")))
	got := b.text("details.attempt-headers")
	for _, want := range []string{"Webhook-Signature", "v1,", "…", "Hookrelay-Event-Id", "evt_browser_fail", "X-Request-Id", "req_browser_42", "Retry-After"} {
		if !strings.Contains(got, want) {
			t.Errorf("the attempt's headers lack %q: %q", want, got)
		}
	}
	b.run("show the attempt", chromedp.ScrollIntoView(chromedp.CSS("details.attempt-headers")))
	b.shoot("event-attempt-headers")
	b.docShot("console-attempt-headers")
	if hidden := b.outOfSight(390, "details.attempt-headers dd", "details.attempt-headers dt"); len(hidden) > 0 {
		t.Errorf("at 390 px out of sight: %v", hidden)
	}
}
