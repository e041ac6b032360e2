package e2e

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"testing"

	"github.com/hookrelay/hookrelay/internal/adminapi"
	"github.com/hookrelay/hookrelay/internal/signature"
	"github.com/hookrelay/hookrelay/internal/testdb"
)

const replayConfig = `tokens:
  - {name: viewer, role: read, secret: "replay-read-token-0c4e"}
sources:
  - name: github
    verify: github
    secrets: ["replay-github-secret-9a1f"]
`

// TestHostileReplayedGitHubBody holds one captured GitHub delivery and
// posts its body and signature again 150 times, each with a new delivery
// id and a made-up event type. What a read token sees of the stored
// delivery carries no signature to capture, and the made-up types add at
// most 100 metric series to the source, the rest counted as "other".
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
			answered := map[int]int{}
			for i := range posts + 1 {
				typ := "push"
				if i > 0 {
					typ = fmt.Sprintf("made-up-%03d", i)
				}
				answered[signedStatus(http.DefaultClient, p, "github", opts, 0, signature.Message{ID: fmt.Sprintf("delivery-%03d", i), Type: typ, Body: body})]++
			}

			status, answer := hostileAdmin(t, p, "replay-read-token-0c4e", "GET", "/api/v1/events?limit=1000", "")
			var list adminapi.EventList
			if status != 200 || json.Unmarshal(answer, &list) != nil || len(list.Events) == 0 {
				t.Fatalf("list: %d %.200s", status, answer)
			}
			status, answer = hostileAdmin(t, p, "replay-read-token-0c4e", "GET", "/api/v1/events/"+list.Events[0].ID, "")
			var ev adminapi.EventDetail
			if status != 200 || json.Unmarshal(answer, &ev) != nil {
				t.Fatalf("show: %d %.200s", status, answer)
			}
			if sig := ev.Headers["X-Hub-Signature-256"]; len(sig) != 1 || sig[0] != "[masked]" {
				t.Errorf("a read token sees X-Hub-Signature-256 = %q, want [masked]", sig)
			}

			types := metricTypes(t, p, "github")
			if len(types) > 101 || !types["other"] {
				t.Errorf("%d type series for the source (other: %t), want at most 100 and other", len(types), types["other"])
			}
			t.Logf("RELIABILITY replayed-body driver=%s posts=%d answered=%v stored=%d signature_shown=%q type_series=%d",
				driver.Name, posts+1, answered, len(list.Events), ev.Headers["X-Hub-Signature-256"], len(types))
		})
	}
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
