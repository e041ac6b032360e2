package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// secretEnv is the variable the relay's config reads the Stripe secret from.
const secretEnv = "BENCH_STRIPE_SECRET"

// buildRelay builds ./cmd/hookrelay of the module in the working directory
// into dir and returns the binary's path.
func buildRelay(ctx context.Context, dir string) (string, error) {
	bin := filepath.Join(dir, "hookrelay")
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, "./cmd/hookrelay")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("build relay: %w\n%s", err, out.String())
	}
	return bin, nil
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
	var err error
	if c.Listen, err = freeAddr(); err != nil {
		return nil, err
	}
	if c.AdminListen, err = freeAddr(); err != nil {
		return nil, err
	}
	cfgPath := filepath.Join(dir, name+".yaml")
	if err := writeConfig(cfgPath, c); err != nil {
		return nil, err
	}
	logPath := filepath.Join(dir, name+".log")
	logFile, err := os.Create(logPath)
	if err != nil {
		return nil, fmt.Errorf("create relay log: %w", err)
	}
	cmd := exec.Command(binary, "serve", "--config", cfgPath)
	cmd.Env = append(os.Environ(), secretEnv+"="+secret)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	err = cmd.Start()
	_ = logFile.Close() // the child holds its own descriptor
	if err != nil {
		return nil, fmt.Errorf("start relay: %w", err)
	}
	p := &relayProc{childProc: &childProc{cmd: cmd, done: make(chan struct{})}, cfg: c, logPath: logPath}
	go p.wait()
	if err := p.waitReady(ctx, 60*time.Second); err != nil {
		_ = p.cmd.Process.Kill()
		<-p.done
		return nil, fmt.Errorf("%w; log:\n%s", err, tail(logPath, 20))
	}
	return p, nil
}

// ingestURL is where the relay takes the stripe source's webhooks.
func (p *relayProc) ingestURL() string { return "http://" + p.cfg.Listen + "/webhooks/stripe" }

// waitReady polls /readyz until it answers 200, the relay exits, or
// timeout passes.
func (p *relayProc) waitReady(ctx context.Context, timeout time.Duration) error {
	url := "http://" + p.cfg.AdminListen + "/readyz"
	client := &http.Client{Timeout: 2 * time.Second}
	deadline := time.Now().Add(timeout)
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return fmt.Errorf("build readiness request: %w", err)
		}
		if resp, err := client.Do(req); err == nil {
			_ = resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		select {
		case <-p.done:
			return fmt.Errorf("relay exited before it was ready: %v", p.err)
		case <-ctx.Done():
			return fmt.Errorf("wait for readiness: %w", ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("relay not ready after %v", timeout)
		}
	}
}

// freeAddr returns a 127.0.0.1 address with a port that was free a moment
// ago.
func freeAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", fmt.Errorf("find a free port: %w", err)
	}
	addr := ln.Addr().String()
	if err := ln.Close(); err != nil {
		return "", fmt.Errorf("find a free port: %w", err)
	}
	return addr, nil
}

// tail returns the last n lines of the file at path.
func tail(path string, n int) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return "(no log: " + err.Error() + ")"
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	return strings.Join(lines[max(len(lines)-n, 0):], "\n")
}

// procMemory reads VmRSS and VmHWM (the peak RSS) of pid, in bytes.
func procMemory(pid int) (rss, hwm int64, err error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, 0, fmt.Errorf("read process status: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		key, val, ok := strings.Cut(sc.Text(), ":")
		if !ok || (key != "VmRSS" && key != "VmHWM") {
			continue
		}
		kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(val), " kB"), 10, 64)
		if err != nil {
			return 0, 0, fmt.Errorf("parse %s %q: %w", key, val, err)
		}
		if key == "VmRSS" {
			rss = kb << 10
		} else {
			hwm = kb << 10
		}
	}
	if err := sc.Err(); err != nil {
		return 0, 0, fmt.Errorf("read process status: %w", err)
	}
	return rss, hwm, nil
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
			if rss, _, err := procMemory(pid); err == nil {
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
