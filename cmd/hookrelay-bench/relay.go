package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/hookrelay/hookrelay/internal/relayproc"
)

// secretEnv is the variable the relay's config reads the Stripe secret from.
const secretEnv = "BENCH_STRIPE_SECRET"

// relayBinary returns given, the --binary flag, or when it is empty
// builds ./cmd/hookrelay into dir, saying so on stderr.
func relayBinary(ctx context.Context, stderr io.Writer, dir, given string) (string, error) {
	if given != "" {
		return given, nil
	}
	fmt.Fprintln(stderr, "building ./cmd/hookrelay")
	return relayproc.Build(ctx, dir, "./cmd/hookrelay")
}

// relayConfig is what a benchmark sets in the relay's config file.
type relayConfig struct {
	Database    string
	Listen      string
	AdminListen string
	LogLevel    string
	// MaxBody is the stripe source's max_body, e.g. "2MiB"; empty keeps
	// the default.
	MaxBody string
	// Extra is YAML appended to the file as it is: tokens, destinations.
	Extra string
}

// writeConfig writes c as a hookrelay.yaml at path. The Stripe secret is
// read from the environment, never written.
func writeConfig(path string, c relayConfig) error {
	var b strings.Builder
	fmt.Fprintf(&b, "database: %q\n", c.Database)
	fmt.Fprintf(&b, "listen: %q\n", c.Listen)
	fmt.Fprintf(&b, "admin_listen: %q\n", c.AdminListen)
	b.WriteString("sources:\n  - name: stripe\n    verify: stripe\n")
	fmt.Fprintf(&b, "    secrets: [\"${%s}\"]\n", secretEnv)
	if c.MaxBody != "" {
		fmt.Fprintf(&b, "    max_body: %s\n", c.MaxBody)
	}
	fmt.Fprintf(&b, "log:\n  level: %s\n", c.LogLevel)
	b.WriteString(c.Extra)
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		return fmt.Errorf("write config: %w", err)
	}
	return nil
}

// relayProc is a running `hookrelay serve`.
type relayProc struct {
	*childProc
	cfg     relayConfig
	logPath string
}

// startRelay writes the config into dir, starts `binary serve` with secret in
// its environment and its output in dir/<name>.log, and waits until its
// /readyz answers 200.
func startRelay(ctx context.Context, binary, dir, name string, c relayConfig, secret string) (*relayProc, error) {
	addrs, err := relayproc.FreeAddrs(2)
	if err != nil {
		return nil, err
	}
	c.Listen, c.AdminListen = addrs[0], addrs[1]
	cfgPath := filepath.Join(dir, name+".yaml")
	if err := writeConfig(cfgPath, c); err != nil {
		return nil, err
	}
	logPath := filepath.Join(dir, name+".log")
	logFile, err := os.Create(logPath)
	if err != nil {
		return nil, fmt.Errorf("create relay log: %w", err)
	}
	proc, err := relayproc.Start(relayproc.Options{
		Binary: binary, Args: []string{"serve", "--config", cfgPath},
		Env: []string{secretEnv + "=" + secret}, Output: logFile, Admin: c.AdminListen,
	})
	_ = logFile.Close() // the child holds its own descriptor
	if err != nil {
		return nil, err
	}
	p := &relayProc{childProc: &childProc{Proc: proc}, cfg: c, logPath: logPath}
	if err := p.WaitReady(ctx, 60*time.Second); err != nil {
		p.Kill()
		return nil, fmt.Errorf("%w; log:\n%s", err, tail(logPath, 20))
	}
	return p, nil
}

// ingestURL is where the relay takes the stripe source's webhooks.
func (p *relayProc) ingestURL() string { return "http://" + p.cfg.Listen + "/webhooks/stripe" }

// tail returns the last n lines of the file at path.
func tail(path string, n int) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return "(no log: " + err.Error() + ")"
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	return strings.Join(lines[max(len(lines)-n, 0):], "\n")
}

// rssSampler samples a process's RSS at a fixed interval until stopped.
type rssSampler struct {
	pid  int
	stop chan struct{}
	wg   sync.WaitGroup

	mu      sync.Mutex // guards the fields below
	peak    int64
	samples int
}

func sampleRSS(pid int, every time.Duration) *rssSampler {
	s := &rssSampler{pid: pid, stop: make(chan struct{})}
	s.wg.Go(func() {
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			if rss, _, err := relayproc.Memory(pid); err == nil {
				s.mu.Lock()
				s.peak = max(s.peak, rss)
				s.samples++
				s.mu.Unlock()
			}
			select {
			case <-s.stop:
				return
			case <-t.C:
			}
		}
	})
	return s
}

// Stop ends sampling and returns the highest RSS seen and how many samples
// were taken.
func (s *rssSampler) Stop() (peak int64, samples int) {
	close(s.stop)
	s.wg.Wait()
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.peak, s.samples
}
