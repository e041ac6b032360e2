package e2e

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/adminwire"
	"github.com/hookrelay/hookrelay/internal/signature"
	"github.com/hookrelay/hookrelay/internal/testkit"
	"github.com/hookrelay/hookrelay/internal/testkit/testdb"
)

const replayConfig = `ingest:
  rejections_per_second: 1000
tokens:
  - {name: viewer, role: read, secret: "replay-read-token-0c4e"}
sources:
  - name: github
    verify: github
    secrets: ["replay-github-secret-9a1f"]
`

// TestHostileReplayedGitHubBody holds one captured GitHub delivery and
// posts its body and signature again 150 times, each with a new delivery
// id and a made-up event type: GitHub signs the body alone, so each
// verifies, and each is refused with 409 and recorded as a rejection, while
// GitHub's own retry under the same delivery id is still 200 duplicate.
// What a read token sees of the stored delivery carries no signature to
// capture, and made-up types on genuine events add at most 100 metric
// series to the source, the rest counted as "other".
func TestHostileReplayedGitHubBody(t *testing.T) {
	t.Parallel()
	const posts = 150
	for _, driver := range testdb.Drivers() {
		t.Run(driver.Name, func(t *testing.T) {
			t.Parallel()
			database := driver.URL(t)
			p := startRelay(t, database, replayConfig, nil)
			opts := signature.Options{Scheme: "github", Secrets: []string{"replay-github-secret-9a1f"}}
			body := []byte(`{"ref":"refs/heads/main","after":"9049f1265b7d61be4a8904a9a27120d2064dab3b"}`)
			captured := signature.Message{ID: "delivery-000", Type: "push", Body: body}
			if got := signedStatus(http.DefaultClient, p, "github", opts, 0, captured); got != 200 {
				t.Fatalf("the genuine delivery: %d, want 200", got)
			}
			reposted := map[int]int{}
			for i := 1; i <= posts; i++ {
				msg := signature.Message{ID: fmt.Sprintf("delivery-%03d", i), Type: fmt.Sprintf("made-up-%03d", i), Body: body}
				reposted[signedStatus(http.DefaultClient, p, "github", opts, 0, msg)]++
			}
			retried := signedStatus(http.DefaultClient, p, "github", opts, 0, captured)
			if reposted[409] != posts || retried != 200 {
				t.Errorf("re-posts under new ids answered %v, want %d × 409; the provider's retry %d, want 200", reposted, posts, retried)
			}
			if n := countStored(t, openStore(t, database), "github"); n != 1 {
				t.Errorf("stored %d events, want the genuine one", n)
			}
			recorded := waitRejections(t, p, "replay-read-token-0c4e", "replayed_signature", posts)
			counted, err := scrapeValue(http.DefaultClient, "http://"+p.admin+"/metrics",
				`hookrelay_ingest_requests_total{outcome="rejected",reason="replayed_signature",source="github",type=""}`)
			if err != nil {
				t.Fatal(err)
			}
			if recorded != posts || counted != posts {
				t.Errorf("%d rejections recorded and %v counted as replayed_signature, want %d", recorded, counted, posts)
			}

			status, answer := hostileAdmin(t, p, "replay-read-token-0c4e", "GET", "/api/v1/events?limit=1000", "")
			var list adminwire.EventList
			if status != 200 || json.Unmarshal(answer, &list) != nil || len(list.Events) == 0 {
				t.Fatalf("list: %d %.200s", status, answer)
			}
			status, answer = hostileAdmin(t, p, "replay-read-token-0c4e", "GET", "/api/v1/events/"+list.Events[0].ID, "")
			var ev adminwire.EventDetail
			if status != 200 || json.Unmarshal(answer, &ev) != nil {
				t.Fatalf("show: %d %.200s", status, answer)
			}
			if sig := ev.Headers["X-Hub-Signature-256"]; len(sig) != 1 || sig[0] != "[masked]" {
				t.Errorf("a read token sees X-Hub-Signature-256 = %q, want [masked]", sig)
			}

			// Genuine events (each body new) with made-up types.
			for i := range posts {
				msg := signature.Message{ID: fmt.Sprintf("typed-%03d", i), Type: fmt.Sprintf("made-up-%03d", i),
					Body: fmt.Appendf(nil, `{"n":%d}`, i)}
				if got := signedStatus(http.DefaultClient, p, "github", opts, 0, msg); got != 200 {
					t.Fatalf("genuine event %d with a made-up type: %d, want 200", i, got)
				}
			}
			types := metricTypes(t, p, "github")
			if len(types) > 102 || !types["other"] {
				t.Errorf("%d type series for the source (other: %t), want at most 100 types, other and none", len(types), types["other"])
			}
			t.Logf("RELIABILITY replayed-body driver=%s reposts=%d answered=%v provider_retry=%d stored=1 rejections_recorded=%d counted=%v signature_shown=%q type_series=%d",
				driver.Name, posts, reposted, retried, recorded, counted, ev.Headers["X-Hub-Signature-256"], len(types))
		})
	}
}

// waitRejections polls the rejection record until it holds want rows of
// reason (they are written in batches, about once a second), and returns
// how many it holds.
func waitRejections(t *testing.T, p *relayProc, token, reason string, want int) int {
	t.Helper()
	n := 0
	testkit.Eventually(t, 10*time.Second, fmt.Sprintf("%d %s rejections recorded", want, reason), func() error {
		status, answer := hostileAdmin(t, p, token, "GET", "/api/v1/rejections?limit=10000", "")
		var rs adminwire.Rejections
		if status != 200 || json.Unmarshal(answer, &rs) != nil {
			t.Fatalf("rejections: %d %.200s", status, answer)
		}
		n = 0
		for _, r := range rs.Rejections {
			if r.Reason == reason {
				n++
			}
		}
		return testkit.Check(n >= want, "%d recorded", n)
	})
	return n
}

// scrapeMetrics returns what /metrics on the relay's admin listener shows.
func scrapeMetrics(t *testing.T, p *relayProc) string {
	t.Helper()
	resp, err := http.Get("http://" + p.admin + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	text, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		t.Fatalf("/metrics: %d", resp.StatusCode)
	}
	return string(text)
}

// metricTypes returns the type label values of the source's ingest
// request counter, as /metrics on the admin listener shows them.
func metricTypes(t *testing.T, p *relayProc, source string) map[string]bool {
	t.Helper()
	re := regexp.MustCompile(`hookrelay_ingest_requests_total\{[^}]*source="` + source + `"[^}]*type="([^"]*)"`)
	types := map[string]bool{}
	for _, m := range re.FindAllStringSubmatch(scrapeMetrics(t, p), -1) {
		types[m[1]] = true
	}
	return types
}
