package main

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"
)

// Secrets of the soak's config, given to the relay through its environment.
const (
	stripeSecret = "whsec_c29hay1zdHJpcGUtc2VjcmV0"
	sinkSecret   = "whsec_c29hay1zaW5rLXNlY3JldA=="
)

var relayEnv = []string{"SOAK_STRIPE_SECRET=" + stripeSecret, "SOAK_SINK_SECRET=" + sinkSecret}

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

// writeConfig writes the soak's config: the stripe source and one push
// destination, "sink", at url, retried quickly and for as long as a soak
// can need.
func writeConfig(path, database, public, admin, url string) error {
	cfg := fmt.Sprintf(`database: %q
listen: %q
admin_listen: %q
sources:
  - name: stripe
    verify: stripe
    secrets: ["${SOAK_STRIPE_SECRET}"]
destinations:
  - name: sink
    url: %q
    secret: "${SOAK_SINK_SECRET}"
    sources: [stripe]
    timeout: 2s
    max_attempts: 1000
    backoff: [100ms, 500ms, 1s]
    concurrency: 8
log:
  level: warn
`, database, public, admin, url)
	if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
		return fmt.Errorf("write config: %w", err)
	}
	return nil
}

// relayProc is one life of `hookrelay serve`.
type relayProc struct {
	cmd  *exec.Cmd
	done chan struct{}
	err  error
}

// startRelay starts binary on the config at cfgPath with its output
// appended to logPath, and waits until admin's /readyz answers 200.
func startRelay(ctx context.Context, binary, cfgPath, logPath, admin string) (*relayProc, error) {
	logFile, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open relay log: %w", err)
	}
	cmd := exec.Command(binary, "serve", "--config", cfgPath)
	cmd.Env = append(os.Environ(), relayEnv...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	err = cmd.Start()
	_ = logFile.Close() // the child holds its own descriptor
	if err != nil {
		return nil, fmt.Errorf("start relay: %w", err)
	}
	p := &relayProc{cmd: cmd, done: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		close(p.done)
	}()
	if err := p.waitReady(ctx, admin, 60*time.Second); err != nil {
		p.kill()
		return nil, err
	}
	return p, nil
}

func (p *relayProc) waitReady(ctx context.Context, admin string, timeout time.Duration) error {
	client := &http.Client{Timeout: 2 * time.Second}
	deadline := time.Now().Add(timeout)
	for {
		if resp, err := client.Get("http://" + admin + "/readyz"); err == nil {
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

// kill sends SIGKILL and waits until the process is gone.
func (p *relayProc) kill() {
	_ = p.cmd.Process.Signal(syscall.SIGKILL)
	<-p.done
}

// stop sends SIGTERM and waits for the graceful shutdown.
func (p *relayProc) stop() error {
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	<-p.done
	if p.err != nil {
		return fmt.Errorf("relay exit after SIGTERM: %w", p.err)
	}
	return nil
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
