package e2e

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// TestSendSaysWhatToChange: every send that would not reach the relay as
// asked is refused before anything is posted, with what to change; a send
// that goes out says who it is in its User-Agent.
func TestSendSaysWhatToChange(t *testing.T) {
	t.Parallel()
	var (
		mu     sync.Mutex
		agents []string
	)
	sink := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		agents = append(agents, r.Header.Get("User-Agent"))
		mu.Unlock()
		_, _ = w.Write([]byte(`{"status":"stored"}`))
	}))
	defer sink.Close()

	dir := t.TempDir()
	config := writeConfig(t, "sqlite:"+filepath.Join(dir, "hr.db"), freeAddr(t), freeAddr(t), `sources:
  - {name: stripe, verify: stripe, secrets: ["${SEND_STRIPE_SECRET}", "${SEND_STRIPE_OLD}"]}
  - {name: github, verify: github, secrets: ["${SEND_GITHUB_SECRET}"]}
  - {name: acme, verify: standard, secrets: ["${SEND_ACME_SECRET}"]}
  - {name: discord, verify: discord, public_keys: ["${SEND_DISCORD_KEY}"]}
`)
	stripeBody := filepath.Join(dir, "stripe.json")
	githubBody := filepath.Join(dir, "github.json")
	for p, body := range map[string]string{
		stripeBody: `{"id":"evt_in_body","type":"invoice.paid","created":1}`,
		githubBody: `{"ref":"refs/heads/main"}`,
	} {
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	secrets := []string{"SEND_STRIPE_SECRET=whsec_dGVzdC1zZWNyZXQ", "SEND_GITHUB_SECRET=gh", "SEND_ACME_SECRET=whsec_dGVzdC1zZWNyZXQ="}
	send := func(args ...string) []string {
		return append([]string{"send", "--config", config, "--url", sink.URL}, args...)
	}
	for _, tc := range []struct {
		name  string
		env   []string
		args  []string
		code  int
		wants []string
	}{
		{"unknown source", secrets, send("--source", "strpe", "--file", stripeBody), 2,
			[]string{`--source: no source "strpe" in the config (did you mean "stripe"?); it has stripe, github, acme, discord`}},
		{"no secret", nil, send("--source", "stripe", "--file", stripeBody), 1,
			[]string{`source "stripe" has no secret to sign with: set SEND_STRIPE_SECRET (sources[0].secrets[0] is ${SEND_STRIPE_SECRET})`}},
		{"empty slot", secrets, send("--source", "stripe", "--slot", "1", "--file", stripeBody), 1,
			[]string{`its secret in slot 1 is empty: set SEND_STRIPE_OLD`}},
		{"slot beyond", secrets, send("--source", "stripe", "--slot", "2", "--file", stripeBody), 2,
			[]string{`--slot 2: source "stripe" has 2 secret slots (0 and 1)`}},
		{"slot beyond one", secrets, send("--source", "github", "--slot", "5", "--type", "push", "--file", githubBody), 2,
			[]string{`--slot 5: source "github" has 1 secret slot (0)`}},
		{"id in body", secrets, send("--source", "stripe", "--id", "evt_flag", "--file", stripeBody), 2,
			[]string{`--id "evt_flag": source "stripe" (verify: stripe) takes no event id from a header`,
				`reads the id from the payload ("evt_in_body" here): change it in the file and drop --id`}},
		{"github without type", secrets, send("--source", "github", "--file", githubBody), 2,
			[]string{`--type is required: source "github" (verify: github) sends the event type in a header`, "--type push"}},
		{"public keys only", secrets, send("--source", "discord", "--file", stripeBody), 2,
			[]string{`source "discord" verifies with public_keys: sign with --private-key FILE`}},
	} {
		r := wantRun(t, tc.env, tc.code, tc.args...)
		contains(t, tc.name, r.stderr, tc.wants...)
		if r.stdout != "" {
			t.Errorf("%s: something was sent: %q", tc.name, r.stdout)
		}
	}
	mu.Lock()
	if len(agents) != 0 {
		t.Errorf("refused sends reached the server %d times", len(agents))
	}
	mu.Unlock()

	// What a header-id scheme reads, --id sets; the request says who sent it.
	wantRun(t, secrets, 0, send("--source", "acme", "--id", "msg_flag", "--file", stripeBody)...)
	wantRun(t, secrets, 0, send("--source", "github", "--id", "d1", "--type", "push", "--file", githubBody)...)
	version := strings.Fields(wantRun(t, nil, 0, "version").stdout)[1]
	mu.Lock()
	defer mu.Unlock()
	if len(agents) != 2 || agents[0] != "hookrelay/"+version || agents[1] != agents[0] {
		t.Errorf("User-Agent %q; want hookrelay/%s on both sends", agents, version)
	}
	r := wantRun(t, nil, 0, "help", "send")
	contains(t, "send help", r.stdout, "an error for a scheme that reads its id from the body", "required for github")
}
