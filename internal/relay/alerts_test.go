package relay_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/relay"
	"github.com/hookrelay/hookrelay/internal/signature"
	"github.com/hookrelay/hookrelay/internal/testkit"
	"github.com/hookrelay/hookrelay/internal/testkit/testdb"
)

// alertSecret signs the alerts a test relay posts.
const alertSecret = "whsec_YWxlcnQtc2lnbmluZy1rZXk="

// consoleURL is the console address a test relay's alerts link to.
const consoleURL = "https://relay.example.com:8081"

// signedAlertSink records every alert posted to it, headers and bytes.
type signedAlertSink struct {
	mu    sync.Mutex
	posts []postedAlert
}

type postedAlert struct {
	header http.Header
	body   []byte
}

func (s *signedAlertSink) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.posts = append(s.posts, postedAlert{header: r.Header.Clone(), body: b})
}

// wait returns the alerts posted once there are n, failing after 20s.
func (s *signedAlertSink) wait(t *testing.T, n int) []postedAlert {
	t.Helper()
	var posts []postedAlert
	testkit.Eventually(t, 20*time.Second, fmt.Sprintf("%d alerts posted", n), func() error {
		s.mu.Lock()
		posts = append([]postedAlert(nil), s.posts...)
		s.mu.Unlock()
		return testkit.Check(len(posts) >= n, "%d posted", len(posts))
	})
	return posts
}

// alertRelay runs a relay whose one push destination always answers 500
// and goes dead at its first attempt, and whose stripe source raises a
// signature-failure alert past 3 rejections a minute. Its alerts go to the
// returned sink in format, signed, linking to consoleURL; its logs to logs.
func alertRelay(t *testing.T, database, format string, logs io.Writer) (*relay.Relay, *signedAlertSink) {
	t.Helper()
	down := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusInternalServerError)
	}))
	t.Cleanup(down.Close)
	sink := &signedAlertSink{}
	alerts := httptest.NewServer(sink)
	t.Cleanup(alerts.Close)
	r := startRelayLogging(t, database, `alerts:
  url: "`+alerts.URL+`/hooks/T0/B0"
  format: `+format+`
  secret: "`+alertSecret+`"
  console_url: "`+consoleURL+`"
  signature_failures: {rate: 3/m, window: 1m}
destinations:
  - {name: billing, url: "`+down.URL+`", secret: "`+secret+`", sources: [stripe], max_attempts: 1}
`, logs)
	return r, sink
}

// postForged posts a stripe request signed with a secret the source does
// not hold.
func postForged(t *testing.T, r *relay.Relay, body string) int {
	t.Helper()
	h, err := signature.Sign(signature.Options{Scheme: "stripe", Secrets: []string{"whsec_Zm9yZ2VkLXNlY3JldA=="}}, 0, signature.Message{Body: []byte(body)})
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest(http.MethodPost, "http://"+r.PublicAddr()+"/webhooks/stripe", strings.NewReader(body))
	for k, v := range h {
		req.Header[k] = v
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// verifyAlert checks an alert's Standard Webhooks signature with the
// signature package's verifier, as the alert's receiver would.
func verifyAlert(t *testing.T, p postedAlert) {
	t.Helper()
	sch, err := signature.New(signature.Options{Scheme: "standard", Secrets: []string{alertSecret}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sch.Verify(signature.Request{Header: p.header, Body: p.body}); err != nil {
		t.Errorf("alert does not verify: %v\n%s", err, p.body)
	}
}

// raiseBoth makes r post one dead-letter alert and one signature-failure
// alert, in that order, and returns them as posted.
func raiseBoth(t *testing.T, r *relay.Relay, sink *signedAlertSink) (dead, forged postedAlert) {
	t.Helper()
	if code := post(t, r, `{"id":"evt_alert1","type":"invoice.paid","created":1700000000,"data":"payload-marker-7c1"}`); code != 200 {
		t.Fatalf("post: %d", code)
	}
	dead = sink.wait(t, 1)[0]
	for range 4 {
		if code := postForged(t, r, `{"id":"evt_forged","type":"invoice.paid","data":"payload-marker-9f2"}`); code != 401 {
			t.Fatalf("forged post: %d, want 401", code)
		}
	}
	return dead, sink.wait(t, 2)[1]
}

// TestAlertBodies runs a relay on each driver that posts a dead-letter
// alert and a signature-failure alert as JSON, signed, with their kind,
// summary and console link, and logs neither the secret nor a payload byte.
func TestAlertBodies(t *testing.T) {
	t.Parallel()
	for _, driver := range testdb.Drivers() {
		t.Run(driver.Name, func(t *testing.T) {
			t.Parallel()
			var logs lockedBuffer
			r, sink := alertRelay(t, driver.URL(t), "json", &logs)
			deadPost, forgedPost := raiseBoth(t, r, sink)
			for _, p := range []postedAlert{deadPost, forgedPost} {
				verifyAlert(t, p)
				if !strings.HasPrefix(p.header.Get("Webhook-Id"), "alert_") {
					t.Errorf("webhook-id %q", p.header.Get("Webhook-Id"))
				}
			}
			if deadPost.header.Get("Webhook-Id") == forgedPost.header.Get("Webhook-Id") {
				t.Error("two alerts share a webhook-id")
			}

			var dead struct {
				Kind, Summary, URL string
				EventID            string `json:"event_id"`
			}
			if err := json.Unmarshal(deadPost.body, &dead); err != nil {
				t.Fatalf("dead-letter alert: %v\n%s", err, deadPost.body)
			}
			if dead.Kind != "dead_letter" || dead.EventID == "" ||
				!strings.HasPrefix(dead.Summary, "billing: delivery ") ||
				!strings.HasSuffix(dead.Summary, " of stripe event evt_alert1 (invoice.paid) is dead after 1 attempt: status 500") ||
				dead.URL != consoleURL+"/events/"+dead.EventID+"#delivery-billing" {
				t.Errorf("dead-letter alert: %s", deadPost.body)
			}

			var forged struct {
				Kind, Summary, URL, Source string
				Rejections                 int
			}
			if err := json.Unmarshal(forgedPost.body, &forged); err != nil {
				t.Fatalf("signature-failure alert: %v\n%s", err, forgedPost.body)
			}
			if forged.Kind != "signature_failures" || forged.Source != "stripe" || forged.Rejections != 4 ||
				forged.Summary != "stripe: 4 requests rejected within 1m, above the alert threshold of 3: signature_mismatch 4" ||
				forged.URL != consoleURL+"/rejections?source=stripe" {
				t.Errorf("signature-failure alert: %s", forgedPost.body)
			}

			for _, p := range []postedAlert{deadPost, forgedPost} {
				if bytes.Contains(p.body, []byte("payload-marker")) {
					t.Errorf("an alert carries payload bytes: %s", p.body)
				}
			}
			_ = r.Shutdown(t.Context()) // the logs are complete once it returns
			for _, leak := range []string{alertSecret, "YWxlcnQtc2lnbmluZy1rZXk", "payload-marker"} {
				if strings.Contains(logs.String(), leak) {
					t.Errorf("the logs carry %q:\n%s", leak, logs.String())
				}
			}
			if !strings.Contains(logs.String(), "delivery dead") {
				t.Errorf("no dead-letter log line:\n%s", logs.String())
			}
		})
	}
}

// TestAlertBodiesSlack runs a relay on each driver whose alerts go out as
// Slack incoming-webhook messages, signed: the summary, then the console
// link in Slack's <url|text> markup.
func TestAlertBodiesSlack(t *testing.T) {
	t.Parallel()
	for _, driver := range testdb.Drivers() {
		t.Run(driver.Name, func(t *testing.T) {
			t.Parallel()
			r, sink := alertRelay(t, driver.URL(t), "slack", io.Discard)
			deadPost, forgedPost := raiseBoth(t, r, sink)
			var msgs [2]map[string]string
			for i, p := range []postedAlert{deadPost, forgedPost} {
				verifyAlert(t, p)
				if err := json.Unmarshal(p.body, &msgs[i]); err != nil || len(msgs[i]) != 1 || p.header.Get("Content-Type") != "application/json" {
					t.Fatalf("not a Slack message (%v): %s", err, p.body)
				}
			}
			dead := msgs[0]["text"]
			if !strings.HasPrefix(dead, "billing: delivery ") ||
				!strings.Contains(dead, " of stripe event evt_alert1 (invoice.paid) is dead after 1 attempt: status 500 <"+consoleURL+"/events/") ||
				!strings.HasSuffix(dead, "#delivery-billing|Open in the console>") {
				t.Errorf("dead-letter message: %q", dead)
			}
			want := "stripe: 4 requests rejected within 1m, above the alert threshold of 3: signature_mismatch 4 <" +
				consoleURL + "/rejections?source=stripe|Open in the console>"
			if got := msgs[1]["text"]; got != want {
				t.Errorf("signature-failure message:\n%q\nwant\n%q", got, want)
			}
		})
	}
}

// lockedBuffer is a bytes.Buffer the relay's goroutines write to.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
