package reliability

import (
	"math/rand/v2"
	"net/http"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/testkit/relayproc"
)

// Secrets of the tests' config, given to the relay through its environment.
const (
	stripeSecret = "whsec_cmVsaWFiaWxpdHktc3RyaXBl"
	sinkSecret   = "whsec_cmVsaWFiaWxpdHktc2luay1zZWNyZXQ="
)

var relayEnv = []string{"REL_STRIPE_SECRET=" + stripeSecret, "REL_SINK_SECRET=" + sinkSecret}

// relayProcess is one `hookrelay serve` child process.
type relayProcess struct {
	*relayproc.Relay
	public, admin string
}

// startRelay writes the tests' config — the stripe source and one push
// destination, "sink", at url, retried on backoff (a YAML list) for as
// many attempts as a test can need — for database on fresh loopback ports,
// starts the relay and waits until it is ready. It is killed at the end of
// the test if still running.
func startRelay(t *testing.T, database, url, backoff string) *relayProcess {
	t.Helper()
	return launch(t, relayproc.RelayOptions{
		Binary: binary, ConfigPath: filepath.Join(t.TempDir(), "hookrelay.yaml"), Database: database,
		Config: relayproc.SinkConfig{URL: url, Backoff: backoff, SecretPrefix: "REL"}.YAML(),
		Env:    relayEnv, ReadyTimeout: 30 * time.Second,
	})
}

// restart starts the relay again after it has exited, with the same
// config: the same database and the same ports.
func (p *relayProcess) restart(t *testing.T) *relayProcess {
	t.Helper()
	return launch(t, p.Options)
}

func launch(t *testing.T, o relayproc.RelayOptions) *relayProcess {
	t.Helper()
	r := relayproc.Launch(t, "relay", o)
	return &relayProcess{Relay: r, public: r.Options.Public, admin: r.Options.Admin}
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

// killRepeatedly kills p with SIGKILL kills times, each after a random
// 2–4 s of life, and starts it again after a random 0–300 ms down. It
// returns the process last started and the time it was down in all.
func killRepeatedly[P interface {
	kill(t *testing.T)
	restart(t *testing.T) P
}](t *testing.T, p P, kills int, rng *rand.Rand) (P, time.Duration) {
	t.Helper()
	var downtime time.Duration
	for range kills {
		time.Sleep(2*time.Second + time.Duration(rng.Int64N(int64(2*time.Second)))) // a random life under load: the kill's moment is what is tested
		p.kill(t)
		down := time.Now()
		time.Sleep(time.Duration(rng.Int64N(int64(300 * time.Millisecond)))) // a random time down
		p = p.restart(t)
		downtime += time.Since(down)
	}
	return p, downtime
}
