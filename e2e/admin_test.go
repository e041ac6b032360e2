package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/signature"
	"github.com/hookrelay/hookrelay/internal/testkit/testdb"
)

const (
	e2eAdminToken = "e2e-admin-token-0123456789"
	e2eReadToken  = "e2e-read-token-0123456789"
)

// adminConfig has admin and read tokens, the Stripe source and a pull
// destination, so that nothing is pushed while the CLI looks.
const adminConfig = `tokens:
  - {name: ops, role: admin, secret: "${E2E_ADMIN_TOKEN}"}
  - {name: dashboard, role: read, secret: "${E2E_READ_TOKEN}"}
` + stripeSource + `destinations:
  - name: dev
    pull: true
    secret: "whsec_ZTJlLWRldi1zaWduaW5n"
    sources: [stripe]
`

// lateDestination is added to adminConfig by a restart, for backfill.
const lateDestination = `  - name: late
    pull: true
    secret: "whsec_ZTJlLWxhdGUtc2lnbmluZw=="
    sources: [stripe]
    types: ["invoice.*"]
`

var adminEnv = append([]string{"E2E_ADMIN_TOKEN=" + e2eAdminToken, "E2E_READ_TOKEN=" + e2eReadToken}, stripeEnv...)

// cliEnv is the environment of a CLI command pointed at p with token.
func cliEnv(p *relayProc, token string) []string {
	return []string{"HOOKRELAY_SERVER=http://" + p.admin, "HOOKRELAY_TOKEN=" + token}
}

// postSigned posts body to the relay's Stripe source, signed, and fails
// unless it is stored.
func postSigned(t *testing.T, p *relayProc, body []byte) {
	t.Helper()
	postSignedWith(t, p, body, nil)
}

// postSignedWith is postSigned with extra request headers.
func postSignedWith(t *testing.T, p *relayProc, body []byte, extra http.Header) {
	t.Helper()
	if err := trySignedPost(p, body, extra); err != nil {
		t.Fatal(err)
	}
}

// trySignedPost posts body to the relay's Stripe source, signed, with
// extra request headers, and returns an error unless it is stored; for
// goroutines, which may not fail a test.
func trySignedPost(p *relayProc, body []byte, extra http.Header) error {
	h, err := signature.Sign(signature.Options{Scheme: "stripe", Secrets: []string{stripeSecret}}, 0, signature.Message{Body: body})
	if err != nil {
		return err
	}
	req, err := http.NewRequest(http.MethodPost, "http://"+p.public+"/webhooks/stripe", bytes.NewReader(body))
	if err != nil {
		return err
	}
	for k, v := range h {
		req.Header[k] = v
	}
	req.Header.Set("Content-Type", "application/json; charset=utf-8")
	for k, v := range extra {
		req.Header[k] = v
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	answer, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 {
		return fmt.Errorf("post: %d %s", resp.StatusCode, answer)
	}
	return nil
}

// wantRun runs the binary and fails unless it exits with code.
func wantRun(t *testing.T, env []string, code int, args ...string) result {
	t.Helper()
	r := run(t, env, args...)
	if r.code != code {
		t.Fatalf("%v: exit %d, want %d\nstdout: %s\nstderr: %s", args, r.code, code, r.stdout, r.stderr)
	}
	return r
}

// TestAdminCLI drives the admin API with the real binary against a real
// relay: list, show, raw, verify, replay, backfill and stats, and what the
// CLI says when it is refused.
func TestAdminCLI(t *testing.T) {
	t.Parallel()
	for _, driver := range testdb.Drivers() {
		t.Run(driver.Name, func(t *testing.T) {
			t.Parallel()
			db := driver.URL(t)
			p := startRelay(t, db, adminConfig, adminEnv)
			bodies := map[string][]byte{}
			for i, typ := range []string{"invoice.paid", "invoice.paid", "customer.subscription.updated"} {
				id := fmt.Sprintf("evt_cli_%d", i)
				bodies[id] = fmt.Appendf(nil, "{\n  \"id\": %q,\n  \"type\": %q,\n  \"created\": %d\n}\n", id, typ, time.Now().Unix())
				postSigned(t, p, bodies[id])
			}
			admin, read := cliEnv(p, e2eAdminToken), cliEnv(p, e2eReadToken)

			// events list, as JSON and as a table.
			r := wantRun(t, read, 0, "events", "list", "--json")
			var list struct {
				Events []struct {
					ID              string `json:"id"`
					ProviderEventID string `json:"provider_event_id"`
				} `json:"events"`
				NextCursor string `json:"next_cursor"`
			}
			if err := json.Unmarshal([]byte(r.stdout), &list); err != nil || len(list.Events) != 3 {
				t.Fatalf("events list --json: %v\n%s", err, r.stdout)
			}
			ids := map[string]string{} // provider id → hookrelay id
			for _, e := range list.Events {
				ids[e.ProviderEventID] = e.ID
			}
			r = wantRun(t, read, 0, "events", "list", "--type", "invoice.*", "--since", "-1h")
			contains(t, "events list", r.stdout, "RECEIVED", "PROVIDER ID", "evt_cli_0", "evt_cli_1", "dev:pending")
			if strings.Contains(r.stdout, "evt_cli_2") {
				t.Errorf("events list --type invoice.* lists a subscription event:\n%s", r.stdout)
			}
			r = wantRun(t, read, 0, "events", "list", "--limit", "1")
			contains(t, "events list --limit 1 stderr", r.stderr, "--cursor ")

			// events show and raw.
			id := ids["evt_cli_0"]
			r = wantRun(t, read, 0, "events", "show", id)
			contains(t, "events show", r.stdout, id, "evt_cli_0 (from", "Stripe-Signature:", "dev", "pending")
			r = wantRun(t, read, 0, "events", "show", id, "--json")
			contains(t, "events show --json", r.stdout, `"provider_event_id": "evt_cli_0"`, `"attempt_log"`)
			r = wantRun(t, read, 0, "events", "raw", id)
			if r.stdout != string(bodies["evt_cli_0"]) {
				t.Errorf("events raw = %q, want %q", r.stdout, bodies["evt_cli_0"])
			}

			// verify.
			r = wantRun(t, read, 0, "verify", id)
			contains(t, "verify", r.stdout, "valid: the signature matches secret slot 0 (scheme stripe)", "skew:")

			// replay: the dry-run count first, then --yes, which a run
			// without a terminal needs.
			r = wantRun(t, admin, 2, "replay", "--source", "stripe")
			contains(t, "replay without --yes", r.stdout, "3 deliveries match: 3 would be re-armed")
			contains(t, "replay without --yes", r.stderr, "add --yes")
			r = wantRun(t, admin, 0, "replay", "--source", "stripe", "--type", "invoice.*", "--dry-run")
			contains(t, "replay --dry-run", r.stdout, "2 deliveries match: 2 would be re-armed")
			r = wantRun(t, admin, 0, "replay", "--id", ids["evt_cli_0"], "--id", ids["evt_cli_2"], "--yes")
			contains(t, "replay --yes", r.stdout, "re-armed 2 deliveries")
			r = wantRun(t, read, 0, "events", "show", id, "--json")
			contains(t, "events show after replay", r.stdout, `"replay_count": 1`)

			// stats.
			r = wantRun(t, read, 0, "stats", "--json")
			contains(t, "stats --json", r.stdout, `"dev": {`, `"pending": 3`, `"stripe": {`, `"runner": {`)
			r = wantRun(t, read, 0, "stats")
			contains(t, "stats", r.stdout, "DESTINATION", "OLDEST PENDING", "SOURCE", "stripe", "fleet runner: ")

			// Refusals say what to do next.
			r = wantRun(t, []string{"HOOKRELAY_SERVER=http://" + p.admin, "HOOKRELAY_TOKEN="}, 1, "stats")
			contains(t, "stats without a token", r.stderr, "no token given", "HOOKRELAY_TOKEN")
			r = wantRun(t, cliEnv(p, "wrong"), 1, "stats")
			contains(t, "stats with a wrong token", r.stderr, "the server refused the token", "--token")
			r = wantRun(t, read, 1, "replay", "--source", "stripe", "--yes")
			contains(t, "replay with a read token", r.stderr, "role does not allow", "an admin token")
			r = wantRun(t, read, 1, "events", "show", "01NOSUCHEVENT0000000000000")
			contains(t, "events show of an unknown id", r.stderr, "no event", "hookrelay events list")
			r = wantRun(t, []string{"HOOKRELAY_SERVER=http://" + freeAddr(t), "HOOKRELAY_TOKEN=x"}, 1, "stats")
			contains(t, "stats of no server", r.stderr, "cannot reach the admin API", "--server")
			for _, args := range [][]string{
				{"events"}, {"events", "show"}, {"events", "show", "a", "b"}, {"events", "frob"},
				{"replay"}, {"replay", "--since", "yesterday", "--yes"},
				{"backfill", "--destination", "late"}, {"verify"}, {"stats", "stray"},
				{"stats", "--server", "ftp://x"},
			} {
				if r := run(t, admin, args...); r.code != 2 {
					t.Errorf("%v: exit %d, want 2 (stderr %q)", args, r.code, r.stderr)
				}
			}

			// backfill: a destination added by a restart gets its
			// invoices once.
			if code := p.stop(t); code != 0 {
				t.Fatalf("relay exit code %d", code)
			}
			p = startRelay(t, db, adminConfig+lateDestination, adminEnv)
			admin = cliEnv(p, e2eAdminToken)
			window := []string{"backfill", "--destination", "late", "--since", "-1h", "--until", time.Now().Add(time.Minute).UTC().Format(time.RFC3339)}
			r = wantRun(t, admin, 2, window...)
			contains(t, "backfill without --yes", r.stdout, "2 events of the window would get a delivery to late")
			r = wantRun(t, admin, 0, append(window, "--yes")...)
			contains(t, "backfill --yes", r.stdout, "created 2 deliveries to late")
			r = wantRun(t, admin, 0, append(window, "--yes")...)
			contains(t, "second backfill", r.stdout, "0 events of the window")
		})
	}
}
