package main

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/hookrelay/hookrelay/internal/config"
	"github.com/hookrelay/hookrelay/internal/payloadcrypt"
	"github.com/hookrelay/hookrelay/internal/testkit/relayproc"
)

// secretEnv is the variable the relay's config reads the Stripe secret from.
const secretEnv = "BENCH_STRIPE_SECRET"

// keyEnv is the variable the relay's config reads the payload key from.
const keyEnv = "BENCH_PAYLOAD_KEY"

// scratch makes the run's scratch directory and, when withRelay, finds
// the relay binary: given (the --binary flag), or ./cmd/hookrelay built
// into the directory, saying so on stderr. remove deletes the directory.
func scratch(ctx context.Context, stderr io.Writer, given string, withRelay bool) (dir, binary string, remove func(), err error) {
	if dir, err = os.MkdirTemp("", "hookrelay-bench-"); err != nil {
		return "", "", nil, fmt.Errorf("make scratch directory: %w", err)
	}
	remove = func() { os.RemoveAll(dir) }
	binary = given
	if withRelay && binary == "" {
		fmt.Fprintln(stderr, "building ./cmd/hookrelay")
		if binary, err = relayproc.Build(ctx, dir, "./cmd/hookrelay"); err != nil {
			remove()
			return "", "", nil, err
		}
	}
	return dir, binary, remove, nil
}

// relayConfig is what a benchmark sets in the relay's config file.
type relayConfig struct {
	Database string
	LogLevel string
	// MaxBody is the stripe source's max_body; 0 keeps the default.
	MaxBody config.ByteSize
	// Extra is YAML appended to the file as it is: tokens, destinations.
	Extra string
	// Key, when set, is a payload key (base64 of 32 bytes) under which the
	// relay seals what it stores; it is read from the environment.
	Key string
}

// yaml returns the config after the database and the listeners: the
// stripe source, whose secret is read from the environment, never
// written; the log level; then Extra.
func (c relayConfig) yaml() string {
	var b strings.Builder
	b.WriteString("sources:\n  - name: stripe\n    verify: stripe\n")
	fmt.Fprintf(&b, "    secrets: [\"${%s}\"]\n", secretEnv)
	if c.MaxBody != 0 {
		fmt.Fprintf(&b, "    max_body: %s\n", c.MaxBody)
	}
	fmt.Fprintf(&b, "log:\n  level: %s\n", c.LogLevel)
	if c.Key != "" {
		fmt.Fprintf(&b, "encryption:\n  keys:\n    - {id: bench, key: \"${%s}\"}\n", keyEnv)
	}
	b.WriteString(c.Extra)
	return b.String()
}

// payloadKey returns, when encrypt is set, a random payload key in base64
// and its ring, as relayConfig.Key and the store that prepares rows for
// that relay take them; otherwise "" and nil.
func payloadKey(encrypt bool) (string, *payloadcrypt.Ring, error) {
	if !encrypt {
		return "", nil, nil
	}
	secret := make([]byte, payloadcrypt.KeySize)
	_, _ = rand.Read(secret)
	ring, err := payloadcrypt.NewRing([]payloadcrypt.Key{{ID: "bench", Secret: secret}})
	if err != nil {
		return "", nil, err
	}
	return base64.StdEncoding.EncodeToString(secret), ring, nil
}

// startRelay writes the config into dir as <name>.yaml, starts `binary
// serve` with args after it, secret in its environment and its output
// appended to dir/<name>.log, and waits until its /readyz answers 200.
func startRelay(ctx context.Context, binary, dir, name string, c relayConfig, secret string, args ...string) (*relayproc.Relay, error) {
	return relayproc.StartRelay(ctx, relayproc.RelayOptions{
		Binary: binary, ConfigPath: filepath.Join(dir, name+".yaml"), Database: c.Database, Config: c.yaml(),
		Env: []string{secretEnv + "=" + secret, keyEnv + "=" + c.Key}, LogPath: filepath.Join(dir, name+".log"),
		Args: args,
	})
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
