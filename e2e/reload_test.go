package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/signature"
	"github.com/hookrelay/hookrelay/internal/testkit"
	"github.com/hookrelay/hookrelay/internal/testkit/testdb"
)

// The secrets and tokens of the reload test. S1 is the Stripe secret the
// relay starts with; the rotation adds S2, then removes S1.
const (
	reloadS1     = "whsec_cmVsb2FkLXMxLXNlY3JldA=="
	reloadS2     = "whsec_cmVsb2FkLXMyLXNlY3JldA=="
	reloadGitHub = "reload-github-secret"
	reloadR1     = "reload-old-read-token-0123"
	reloadR2     = "reload-new-read-token-0123"
)

var reloadEnv = append([]string{"S1=" + reloadS1, "S2=" + reloadS2, "GH=" + reloadGitHub, "R1=" + reloadR1, "R2=" + reloadR2}, adminEnv...)

// reloadConfig is the config of one step of the test, after the database
// and listener keys.
func reloadConfig(sink string, step string) string {
	billing := `  - {name: billing, url: "` + sink + `/billing", secret: "whsec_YmlsbGluZy1zaWduaW5n", sources: [stripe]}
`
	dev := `  - {name: dev, pull: true, secret: "whsec_ZGV2LXNpZ25pbmc=", sources: [stripe]}
`
	audit := `  - {name: audit, url: "` + sink + `/audit", secret: "whsec_YXVkaXQtc2lnbmluZw==", sources: [stripe, github]}
`
	admin := `  - {name: ops, role: admin, secret: "${E2E_ADMIN_TOKEN}"}
`
	switch step {
	case "start":
		return "tokens:\n" + admin + `  - {name: old-reader, role: read, secret: "${R1}"}
sources:
  - {name: stripe, verify: stripe, secrets: ["${S1}"]}
destinations:
` + billing + dev
	case "rotate": // add S2 as slot 0, a read token, a source and a destination
		return "tokens:\n" + admin + `  - {name: old-reader, role: read, secret: "${R1}"}
  - {name: new-reader, role: read, secret: "${R2}"}
sources:
  - {name: stripe, verify: stripe, secrets: ["${S2}", "${S1}"]}
  - {name: github, verify: github, secrets: ["${GH}"]}
destinations:
` + billing + dev + audit
	case "finish": // drop S1, the old token and the pull destination; change billing; a restart-only key
		return "tokens:\n" + admin + `  - {name: new-reader, role: read, secret: "${R2}"}
sources:
  - {name: stripe, verify: stripe, secrets: ["${S2}"]}
  - {name: github, verify: github, secrets: ["${GH}"]}
destinations:
  - {name: billing, url: "` + sink + `/billing", secret: "whsec_YmlsbGluZy1zaWduaW5n", sources: [stripe], timeout: 5s}
` + audit + `log: {level: debug}
`
	}
	return "sources:\n  - {name: stripe, verify: strpe, secrets: [\"${S2}\"]}\n" // refused
}

// TestReloadUnderLoad rewrites the config and reloads it, by SIGHUP and
// by the admin API, while senders post signed events without pause and a
// push destination takes its time: a secret rotation in its steps, tokens,
// a source and destinations added, changed and removed, and configs that
// are refused. No request may fail, every event must be delivered, and
// each change must hold as soon as its reload answers.
func TestReloadUnderLoad(t *testing.T) {
	t.Parallel()
	for _, driver := range testdb.Drivers() {
		t.Run(driver.Name, func(t *testing.T) {
			t.Parallel()
			var billing, audit sync.Map // webhook-id → true
			sink := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				time.Sleep(20 * time.Millisecond) // a destination that takes a while: deliveries are in flight during every reload
				m := &billing
				if r.URL.Path == "/audit" {
					m = &audit
				}
				m.Store(r.Header.Get("webhook-id"), true)
			}))
			defer sink.Close()
			p := startRelay(t, driver.URL(t), reloadConfig(sink.URL, "start"), reloadEnv)
			rewrite := func(step string) {
				t.Helper()
				cfg := fmt.Sprintf("database: %q\nlisten: %q\nadmin_listen: %q\n%s", mustDatabase(t, p), p.public, p.admin, reloadConfig(sink.URL, step))
				if err := os.WriteFile(p.configPath, []byte(cfg), 0o600); err != nil {
					t.Fatal(err)
				}
			}

			// Senders: sign with the secret of the current step.
			var (
				signWith atomic.Pointer[string]
				sent     atomic.Int64
				failures = make(chan string, 100)
				stopLoad = make(chan struct{})
				senders  sync.WaitGroup
			)
			s1 := reloadS1
			signWith.Store(&s1)
			for w := range 4 {
				senders.Add(1)
				go func() {
					defer senders.Done()
					client := &http.Client{Timeout: 30 * time.Second}
					for i := 0; ; i++ {
						select {
						case <-stopLoad:
							return
						default:
						}
						id := fmt.Sprintf("evt_reload_%d_%d", w, i)
						if code := reloadPost(client, p, *signWith.Load(), id); code != 200 {
							select {
							case failures <- fmt.Sprintf("%s: %d", id, code):
							default:
							}
							continue
						}
						sent.Add(1)
					}
				}()
			}
			// pause lets the load run on between two steps: until it has
			// sent 20 more events.
			pause := func() {
				t.Helper()
				n := sent.Load()
				testkit.Eventually(t, 20*time.Second, "20 more events sent", func() error {
					return testkit.Check(sent.Load() >= n+20, "%d sent since", sent.Load()-n)
				})
			}

			// Step 1, by SIGHUP: S2 becomes slot 0 beside S1; a read token,
			// the github source and the audit destination appear.
			pause()
			rewrite("rotate")
			if err := syscall.Kill(p.Pid(), syscall.SIGHUP); err != nil {
				t.Fatal(err)
			}
			testkit.Eventually(t, 10*time.Second, "the rotate step's read token", func() error {
				code, _ := hostileAdmin(t, p, reloadR2, "GET", "/api/v1/stats", "")
				return testkit.Check(code == 200, "stats answered %d", code)
			})
			s2 := reloadS2
			signWith.Store(&s2) // the provider now signs with the new secret
			if code := reloadPostGitHub(p); code != 200 {
				t.Errorf("github after it was added: %d, want 200", code)
			}

			// Step 2, by the API: S1, the old token and dev go; billing
			// changes; log is a restart-only key.
			pause()
			rewrite("finish")
			code, answer := hostileAdmin(t, p, e2eAdminToken, "POST", "/api/v1/reload", "")
			var sum struct {
				Sources, Destinations, Tokens int
				RestartRequired               []string `json:"restart_required"`
			}
			if err := json.Unmarshal(answer, &sum); code != 200 || err != nil || sum.Sources != 2 || sum.Destinations != 2 ||
				sum.Tokens != 2 || strings.Join(sum.RestartRequired, ",") != "log" {
				t.Errorf("reload: %d %s, want 200 with 2 sources, 2 destinations, 2 tokens, restart_required [log]", code, answer)
			}
			if code, _ := hostileAdmin(t, p, reloadR1, "GET", "/api/v1/stats", ""); code != 401 {
				t.Errorf("removed token: %d, want 401", code)
			}
			if code := reloadPost(http.DefaultClient, p, reloadS1, "evt_reload_old_secret"); code != 401 {
				t.Errorf("event signed with the removed secret: %d, want 401", code)
			}
			if code, _ := hostileAdmin(t, p, e2eAdminToken, "POST", "/api/v1/destinations/dev/claim", ""); code != 404 {
				t.Errorf("claim from the removed pull destination: %d, want 404", code)
			}

			// A config that does not load is refused, by either way, and the
			// running one stays.
			pause()
			rewrite("broken")
			code, answer = hostileAdmin(t, p, e2eAdminToken, "POST", "/api/v1/reload", "")
			if code != 400 || !bytes.Contains(answer, []byte(`sources[0].verify`)) || !bytes.Contains(answer, []byte("running config stays")) {
				t.Errorf("reload of a broken config: %d %s, want 400 naming sources[0].verify", code, answer)
			}
			r := wantRun(t, cliEnv(p, e2eAdminToken), 1, "reload")
			contains(t, "hookrelay reload of a broken config", r.stderr, "sources[0].verify", "running config stays")
			if err := syscall.Kill(p.Pid(), syscall.SIGHUP); err != nil {
				t.Fatal(err)
			}
			testkit.Eventually(t, 10*time.Second, "the third refusal in the log", func() error {
				n := strings.Count(p.logs.String(), "config reload refused")
				return testkit.Check(n >= 3, "%d refusals logged", n)
			})
			pause()
			if code, _ := hostileAdmin(t, p, reloadR2, "GET", "/api/v1/stats", ""); code != 200 {
				t.Errorf("token of the running config after a refused reload: %d, want 200", code)
			}

			close(stopLoad)
			senders.Wait()
			close(failures)
			for f := range failures {
				t.Errorf("a request failed across reloads: %s", f)
			}
			if sent.Load() < 20 {
				t.Fatalf("only %d events sent", sent.Load())
			}

			// Every stored Stripe event reaches billing, whichever engine
			// claimed it; none is left behind.
			testkit.Eventually(t, 60*time.Second, "every event delivered to billing", func() error {
				n := syncMapLen(&billing)
				return testkit.Check(n >= int(sent.Load()), "%d of %d delivered", n, sent.Load())
			})
			// The last outcomes may still be on their way to the store; a
			// claim dropped by a reload would hold its delivery in processing
			// until its lease ran out (its timeout plus 30 s), longer than
			// this wait.
			var stats map[string]float64
			testkit.Eventually(t, 20*time.Second, "every billing delivery done", func() error {
				code, answer := hostileAdmin(t, p, e2eAdminToken, "GET", "/api/v1/stats", "")
				var all struct {
					Destinations map[string]map[string]float64 `json:"destinations"`
				}
				if err := json.Unmarshal(answer, &all); code != 200 || err != nil {
					t.Fatalf("stats: %d %s", code, answer)
				}
				stats = all.Destinations["billing"]
				return testkit.Check(stats["pending"]+stats["processing"]+stats["failed"]+stats["dead"] == 0 && stats["done"] >= float64(sent.Load()),
					"billing: %v", stats)
			})
			if syncMapLen(&audit) == 0 {
				t.Errorf("the destination added by reload received nothing")
			}
			t.Logf("RELOAD %s: %d events across 2 reloads and 3 refusals, 0 failed; billing got %d, audit %d",
				driver.Name, sent.Load(), syncMapLen(&billing), syncMapLen(&audit))
		})
	}
}

func syncMapLen(m *sync.Map) int {
	n := 0
	m.Range(func(_, _ any) bool { n++; return true })
	return n
}

// mustDatabase reads the database line of p's config file.
func mustDatabase(t *testing.T, p *relayProc) string {
	t.Helper()
	b, err := os.ReadFile(p.configPath)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "database: "); ok {
			return strings.Trim(v, `"`)
		}
	}
	t.Fatal("config has no database line")
	return ""
}

// reloadPost posts a Stripe event signed with secret and returns the
// status code, or 0 when the request failed.
func reloadPost(client *http.Client, p *relayProc, secret, id string) int {
	body := fmt.Appendf(nil, `{"id":%q,"type":"invoice.paid","created":%d}`, id, time.Now().Unix())
	return signedStatus(client, p, "stripe", signature.Options{Scheme: "stripe", Secrets: []string{secret}}, 0, signature.Message{Body: body})
}

// reloadPostGitHub posts one signed GitHub event and returns the status.
func reloadPostGitHub(p *relayProc) int {
	return signedStatus(http.DefaultClient, p, "github", signature.Options{Scheme: "github", Secrets: []string{reloadGitHub}}, 0,
		signature.Message{ID: "gh-reload-1", Type: "issues", Body: []byte(`{"action":"opened"}`)})
}
