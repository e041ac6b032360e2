package e2e

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/testkit"
	"github.com/hookrelay/hookrelay/internal/testkit/testdb"
)

// failuresConfig pushes to a destination that answers 503, given one
// attempt, and to one where nothing listens, tried again in an hour.
func failuresConfig(busy, closed string) string {
	return `tokens:
  - {name: ops, role: admin, secret: "${E2E_ADMIN_TOKEN}"}
  - {name: dashboard, role: read, secret: "${E2E_READ_TOKEN}"}
` + stripeSource + `destinations:
  - name: busy
    url: "` + busy + `/hooks"
    secret: "whsec_ZTJlLXNpbmstc2lnbmluZw=="
    sources: [stripe]
    max_attempts: 1
  - name: gone
    url: "http://` + closed + `/hooks"
    secret: "whsec_ZTJlLXNpbmstc2lnbmluZw=="
    sources: [stripe]
    backoff: [1h]
`
}

// TestFailuresCommand groups a relay's failures with the real binary:
// one table row per destination, status and kind, how to replay a group,
// the JSON, one destination's, and a destination the relay does not have.
func TestFailuresCommand(t *testing.T) {
	t.Parallel()
	for _, driver := range testdb.Drivers() {
		t.Run(driver.Name, func(t *testing.T) {
			t.Parallel()
			busy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				w.WriteHeader(http.StatusServiceUnavailable)
			}))
			defer busy.Close()
			p := startRelay(t, driver.URL(t), failuresConfig(busy.URL, freeAddr(t)), adminEnv)
			read := cliEnv(p, e2eReadToken)

			r := wantRun(t, read, 0, "failures")
			contains(t, "failures of a relay that has none", r.stderr, "no failed or dead deliveries")

			for i := range 3 {
				postSigned(t, p, fmt.Appendf(nil, `{"id":"evt_fail_%d","type":"invoice.paid","created":1}`, i))
			}
			testkit.Eventually(t, 30*time.Second, "both destinations' failures", func() error {
				out := wantRun(t, read, 0, "failures").stdout
				if !regexp.MustCompile(`busy\s+dead\s+5xx\s+3\s`).MatchString(out) || !regexp.MustCompile(`gone\s+failed\s+refused\s+3\s`).MatchString(out) {
					return fmt.Errorf("failures so far:\n%s", out)
				}
				return nil
			})
			r = wantRun(t, read, 0, "failures")
			contains(t, "failures", r.stdout, "LAST SEEN", "DESTINATION", "STATUS", "KIND", "COUNT", "FIRST SEEN", "EXAMPLE",
				"status 503", "connection refused", "hookrelay replay --destination ", "--status ", "--since ", "--until ")

			// The replay the table suggests selects the group.
			m := regexp.MustCompile(`hookrelay replay (--destination \S+ --status \S+ --since \S+ --until \S+)`).FindStringSubmatch(r.stdout)
			if m == nil {
				t.Fatalf("no replay command in:\n%s", r.stdout)
			}
			dry := wantRun(t, cliEnv(p, e2eAdminToken), 0, append([]string{"replay", "--dry-run"}, strings.Fields(m[1])...)...)
			contains(t, "the suggested replay's dry run", dry.stdout, "3 deliveries match: 3 would be re-armed")

			r = wantRun(t, read, 0, "failures", "--destination", "gone", "--json")
			contains(t, "failures --json", r.stdout, `"groups"`, `"destination": "gone"`, `"kind": "refused"`, `"count": 3`, `"received_since"`)
			if strings.Contains(r.stdout, `"busy"`) {
				t.Errorf("failures of gone lists busy's:\n%s", r.stdout)
			}
			r = run(t, read, "failures", "--destination", "gnoe")
			if r.code == 0 || !strings.Contains(r.stderr, `did you mean "gone"`) {
				t.Errorf("failures of a typo: exit %d, stderr %q", r.code, r.stderr)
			}
		})
	}
}
