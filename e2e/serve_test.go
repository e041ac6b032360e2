package e2e

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/signature"
	"github.com/hookrelay/hookrelay/internal/store"
	"github.com/hookrelay/hookrelay/internal/store/storeopen"
	"github.com/hookrelay/hookrelay/internal/testkit"
	"github.com/hookrelay/hookrelay/internal/testkit/testdb"
)

const stripeSecret = "whsec_ZTJlLXN0cmlwZS1zZWNyZXQ"

const stripeSource = `sources:
  - name: stripe
    verify: stripe
    secrets: ["${E2E_STRIPE_SECRET}"]
`

var stripeEnv = []string{"E2E_STRIPE_SECRET=" + stripeSecret}

// openStore opens the relay's database directly, to check what it holds.
func openStore(t *testing.T, database string) store.DB {
	t.Helper()
	st, err := storeopen.Open(context.Background(), database, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	return st
}

// TestSendAndServe is the README's walk-through: serve, send a signed
// event, find it stored byte for byte.
func TestSendAndServe(t *testing.T) {
	t.Parallel()
	for _, driver := range testdb.Drivers() {
		t.Run(driver.Name, func(t *testing.T) {
			t.Parallel()
			db := driver.URL(t)
			p := startRelay(t, db, stripeSource, stripeEnv)
			payload := []byte("{\n  \"id\": \"evt_e2e_send\",\n  \"type\": \"invoice.paid\",\n  \"created\": 1700000000\n}\n")
			file := filepath.Join(t.TempDir(), "event.json")
			if err := os.WriteFile(file, payload, 0o600); err != nil {
				t.Fatal(err)
			}
			args := []string{"send", "--config", p.configPath, "--source", "stripe", "--file", file}
			if r := run(t, stripeEnv, args...); r.code != 0 || r.stdout != "200 {\"status\":\"stored\"}\n" {
				t.Fatalf("send: exit %d stdout %q stderr %q", r.code, r.stdout, r.stderr)
			}
			if r := run(t, stripeEnv, args...); r.code != 0 || r.stdout != "200 {\"status\":\"duplicate\"}\n" {
				t.Fatalf("second send: exit %d stdout %q stderr %q", r.code, r.stdout, r.stderr)
			}
			// A wrong secret is refused, and send says so with exit 1.
			r := run(t, []string{"E2E_STRIPE_SECRET=whsec_d3Jvbmc"}, args...)
			if r.code != 1 || r.stdout != "401 {\"error\":\"signature_mismatch\"}\n" {
				t.Fatalf("send with a wrong secret: exit %d stdout %q", r.code, r.stdout)
			}
			if code := p.stop(t); code != 0 {
				t.Fatalf("relay exit code %d after SIGTERM", code)
			}
			ev, err := openStore(t, db).EventByProviderID(context.Background(), "stripe", "evt_e2e_send")
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(ev.Body, payload) {
				t.Errorf("stored body %q, want %q", ev.Body, payload)
			}
		})
	}
}

// TestGracefulShutdownLosesNothing sends SIGTERM while senders are posting:
// every event answered 200 must be stored, and the relay exits 0.
func TestGracefulShutdownLosesNothing(t *testing.T) {
	t.Parallel()
	for _, driver := range testdb.Drivers() {
		t.Run(driver.Name, func(t *testing.T) {
			t.Parallel()
			db := driver.URL(t)
			p := startRelay(t, db, stripeSource, stripeEnv)
			url := "http://" + p.public + "/webhooks/stripe"
			client := &http.Client{Timeout: 10 * time.Second}

			var (
				mu     sync.Mutex
				acked  []string
				seq    atomic.Int64
				wg     sync.WaitGroup
				stopAt = time.Now().Add(10 * time.Second)
			)
			for range 8 {
				wg.Go(func() {
					for time.Now().Before(stopAt) {
						id := fmt.Sprintf("evt_shutdown_%d", seq.Add(1))
						status, err := postStripe(client, url, id)
						if err != nil {
							return // the relay has stopped listening
						}
						if status == 200 {
							mu.Lock()
							acked = append(acked, id)
							mu.Unlock()
						}
					}
				})
			}
			// Stopped under load: once the senders are well under way.
			testkit.Eventually(t, 10*time.Second, "20 events acknowledged", func() error {
				mu.Lock()
				defer mu.Unlock()
				return testkit.Check(len(acked) >= 20, "%d acknowledged", len(acked))
			})
			code := p.stop(t)
			wg.Wait()
			if code != 0 {
				t.Fatalf("relay exit code %d after SIGTERM", code)
			}
			if len(acked) == 0 {
				t.Fatal("no event was acknowledged before shutdown")
			}
			st := openStore(t, db)
			for _, id := range acked {
				if _, err := st.EventByProviderID(context.Background(), "stripe", id); err != nil {
					t.Errorf("acknowledged event %s: %v", id, err)
				}
			}
			t.Logf("%d events acknowledged before SIGTERM, all stored", len(acked))
		})
	}
}

// postStripe posts one signed Stripe event and returns the status code.
func postStripe(client *http.Client, url, id string) (int, error) {
	body := []byte(fmt.Sprintf(`{"id":%q,"type":"invoice.paid","created":%d}`, id, time.Now().Unix()))
	h, err := signature.Sign(signature.Options{Scheme: "stripe", Secrets: []string{stripeSecret}}, 0, signature.Message{Body: body})
	if err != nil {
		return 0, err
	}
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return 0, err
	}
	for k, v := range h {
		req.Header[k] = v
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode, nil
}
