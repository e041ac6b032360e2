package e2e

import (
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/testkit"
	"github.com/hookrelay/hookrelay/internal/testkit/relayproc"
)

// TestFirstRun follows the README's first run on the example config: the
// relay makes an admin token on its loopback admin listener, send
// stores an event, listen --print-json takes it from the example's pull
// destination, and events show lists the delivery done with its attempt.
// --listen and --admin-listen move the listeners to free ports.
func TestFirstRun(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	example, err := os.ReadFile("../examples/hookrelay.yaml")
	if err != nil {
		t.Fatal(err)
	}
	config := filepath.Join(dir, "hookrelay.yaml")
	if err := os.WriteFile(config, example, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "events"), 0o755); err != nil {
		t.Fatal(err)
	}
	addrs := freeAddrs(t, 2)
	env := []string{"STRIPE_WEBHOOK_SECRET=whsec_dGVzdC1zZWNyZXQ", "HOOKRELAY_ADMIN_TOKEN=", "DEV_SIGNING_SECRET="}
	relay := relayproc.Launch(t, "relay", relayproc.RelayOptions{
		Binary: binary, ConfigPath: config, Args: []string{"--listen", addrs[0], "--admin-listen", addrs[1]},
		Admin: addrs[1], Env: env, ReadyTimeout: 30 * time.Second,
	})
	logs := relay.Logs

	tokenPath := filepath.Join(dir, "hookrelay.admin-token")
	st, err := os.Stat(tokenPath)
	if err != nil {
		t.Fatalf("no generated admin token: %v", err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Errorf("token file mode %v, want 0600", st.Mode().Perm())
	}
	raw, _ := os.ReadFile(tokenPath)
	token := strings.TrimSpace(string(raw))
	// The relay's log is buffered for a moment: wait for the line naming the file.
	testkit.Eventually(t, 20*time.Second, "the relay to log where its admin token is", func() error {
		return testkit.Check(strings.Contains(logs.String(), "no admin token is configured"), "log:\n%s", logs.String())
	})
	contains(t, "relay log", logs.String(), "no admin token is configured", tokenPath)
	if strings.Contains(logs.String(), token) {
		t.Error("the relay logged its admin token")
	}

	wantRun(t, env, 0, "send", "--config", config, "--url", "http://"+addrs[0], "--source", "stripe", "--file", "../examples/events/stripe-invoice-paid.json")
	cli := []string{"HOOKRELAY_SERVER=http://" + addrs[1], "HOOKRELAY_TOKEN=" + token}
	listen := startBg(t, cli, "listen", "--destination", "dev", "--print-json", "--wait", "2s")
	listen.waitOutput(t, `"provider_event_id":"evt_1QExample000000000000001"`, 20*time.Second)
	if code := listen.stop(t); code != 0 {
		t.Errorf("listen exited %d after Ctrl-C", code)
	}
	contains(t, "listen --print-json", listen.stdout.String(), `"body":{"id":"evt_1QExample000000000000001"`, `"Webhook-Signature":"v1,`, `"body_base64":"`)

	r := wantRun(t, cli, 0, "events", "list")
	contains(t, "events list", r.stdout, "evt_1QExample000000000000001", "dev:done")
	id := strings.TrimSpace(wantRun(t, cli, 0, "events", "list", "--limit", "1", "--ids").stdout)
	r = wantRun(t, cli, 0, "events", "show", id)
	contains(t, "events show", r.stdout, "dev", "done", "attempts 1")

	// The README's replay: once more to dev, marked as a replay.
	r = wantRun(t, cli, 0, "replay", "--id", id, "--yes")
	contains(t, "replay", r.stdout, "re-armed 1 delivery")
	listen = startBg(t, cli, "listen", "--destination", "dev", "--print-json", "--wait", "2s")
	listen.waitOutput(t, `"Hookrelay-Replay":"1"`, 20*time.Second)
	if code := listen.stop(t); code != 0 {
		t.Errorf("listen exited %d after Ctrl-C", code)
	}

	// A reload keeps what this run added to the config: the generated token
	// still lets the CLI in, and the listener flags are not taken for
	// changes that need a restart.
	r = wantRun(t, cli, 0, "reload")
	contains(t, "reload", r.stdout, "config reloaded")
	if strings.Contains(r.stdout, "restart") {
		t.Errorf("reload with --listen and --admin-listen: %q", r.stdout)
	}
	r = wantRun(t, cli, 0, "events", "list")
	contains(t, "events list after reload", r.stdout, "evt_1QExample000000000000001")

	if err := relay.Stop(40 * time.Second); err != nil {
		t.Fatal(err)
	}

	// A restart keeps the generated token, so the CLI's still opens the
	// API; a caller without it is told where it is, by the API and by the
	// console's login page; the log says where the console is.
	relay = relayproc.Launch(t, "relay again", relayproc.RelayOptions{
		Binary: binary, ConfigPath: config, Args: []string{"--listen", addrs[0], "--admin-listen", addrs[1]},
		Admin: addrs[1], Env: env, ReadyTimeout: 30 * time.Second,
	})
	if raw, _ := os.ReadFile(tokenPath); strings.TrimSpace(string(raw)) != token {
		t.Errorf("the restarted relay made a new admin token: the CLI's is turned away")
	}
	contains(t, "events list after a restart", wantRun(t, cli, 0, "events", "list").stdout, "evt_1QExample000000000000001")
	r = wantRun(t, []string{"HOOKRELAY_SERVER=http://" + addrs[1], "HOOKRELAY_TOKEN=hrl_wrong"}, 1, "events", "list")
	contains(t, "events list with a wrong token", r.stderr, "refused the token", "hookrelay.admin-token")
	code, answer := getBody(t, "http://"+addrs[1]+"/api/v1/stats")
	if code != 401 || !strings.Contains(answer, tokenPath) {
		t.Errorf("GET /api/v1/stats without a token: %d %s; want 401 naming %s", code, answer, tokenPath)
	}
	code, answer = getBody(t, "http://"+addrs[1]+"/")
	if code != 200 || !strings.Contains(answer, tokenPath) {
		t.Errorf("login page: %d; want it to name %s:\n%s", code, tokenPath, answer)
	}
	testkit.Eventually(t, 20*time.Second, "the relay to log the console's address", func() error {
		return testkit.Check(strings.Contains(relay.Logs.String(), "http://"+addrs[1]+"/"), "log:\n%s", relay.Logs.String())
	})
	if err := relay.Stop(40 * time.Second); err != nil {
		t.Fatal(err)
	}
}

// getBody makes a GET without credentials and returns its status and body.
func getBody(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(b)
}
