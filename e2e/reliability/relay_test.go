package reliability

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/relayproc"
)

// Secrets of the tests' config, given to the relay through its environment.
const (
	stripeSecret = "whsec_cmVsaWFiaWxpdHktc3RyaXBl"
	sinkSecret   = "whsec_cmVsaWFiaWxpdHktc2luay1zZWNyZXQ="
)

var relayEnv = []string{"REL_STRIPE_SECRET=" + stripeSecret, "REL_SINK_SECRET=" + sinkSecret}

// relayConfig is the tests' config: the stripe source and one push
// destination, "sink", at url, retried on backoff (a YAML list) for as many
// attempts as a test can need.
func relayConfig(database, public, admin, url, backoff string) string {
	return relayproc.SinkConfig{
		Database: database, Listen: public, AdminListen: admin,
		URL: url, Backoff: backoff, SecretPrefix: "REL",
	}.YAML()
}

// relayProcess is one `hookrelay serve` child process.
type relayProcess struct {
	*relayproc.Proc
	public, admin string
	configPath    string
	logs          *relayproc.Buffer
}

// startRelay writes the config for database and destination url on fresh
// loopback ports, starts the relay and waits until it is ready. It is
// killed at the end of the test if still running.
func startRelay(t *testing.T, database, url, backoff string) *relayProcess {
	t.Helper()
	addrs := freeAddrs(t, 2)
	p := &relayProcess{public: addrs[0], admin: addrs[1]}
	p.configPath = filepath.Join(t.TempDir(), "hookrelay.yaml")
	cfg := relayConfig(database, p.public, p.admin, url, backoff)
	if err := os.WriteFile(p.configPath, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	p.launch(t)
	return p
}

// restart starts the relay again after it has exited, with the same config
// file: the same database and the same ports.
func (p *relayProcess) restart(t *testing.T) *relayProcess {
	t.Helper()
	q := &relayProcess{public: p.public, admin: p.admin, configPath: p.configPath}
	q.launch(t)
	return q
}

func (p *relayProcess) launch(t *testing.T) {
	t.Helper()
	p.logs = &relayproc.Buffer{}
	proc, err := relayproc.Start(relayproc.Options{
		Binary: binary, Args: []string{"serve", "--config", p.configPath},
		Env: relayEnv, Output: p.logs, Admin: p.admin,
	})
	if err != nil {
		t.Fatal(err)
	}
	p.Proc = proc
	t.Cleanup(func() {
		if !p.Exited() {
			p.Kill()
		}
		if t.Failed() {
			t.Logf("relay (pid %d) logs:\n%s", p.Pid(), p.logs.String())
		}
	})
	if err := p.WaitReady(context.Background(), 30*time.Second); err != nil {
		t.Fatalf("%v\n%s", err, p.logs.String())
	}
}

// kill sends SIGKILL, as a crash or the OOM killer would, and waits until
// the process is gone.
func (p *relayProcess) kill(t *testing.T) {
	t.Helper()
	p.signal(t, syscall.SIGKILL)
}

// stop sends SIGTERM and waits for the graceful shutdown to end.
func (p *relayProcess) stop(t *testing.T) {
	t.Helper()
	p.signal(t, syscall.SIGTERM)
	if err := p.Err(); err != nil {
		t.Errorf("relay exit after SIGTERM: %v", err)
	}
}

func (p *relayProcess) signal(t *testing.T, sig syscall.Signal) {
	t.Helper()
	if err := p.Signal(sig, 40*time.Second); err != nil {
		t.Fatal(err)
	}
}

// ingestURL is where the relay takes the stripe source's webhooks.
func (p *relayProcess) ingestURL() string { return "http://" + p.public + "/webhooks/stripe" }

// readyz returns the status of the relay's /readyz, or 0 when it does not
// answer.
func readyz(client *http.Client, admin string) int {
	resp, err := client.Get("http://" + admin + "/readyz")
	if err != nil {
		return 0
	}
	resp.Body.Close()
	return resp.StatusCode
}

// freeAddrs returns n distinct loopback addresses with free ports.
func freeAddrs(t *testing.T, n int) []string {
	t.Helper()
	addrs, err := relayproc.FreeAddrs(n)
	if err != nil {
		t.Fatal(err)
	}
	return addrs
}
