package e2e

import (
	"bytes"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/testkit"
	"github.com/hookrelay/hookrelay/internal/testkit/testdb"
)

// Two payload keys, each 32 bytes in base64.
var keysEnv = append([]string{
	"E2E_KEY_1=a2V5LW9uZS1mb3ItdGhlLXJvdGF0aW9uLXRlc3QtMzI=",
	"E2E_KEY_2=a2V5LXR3by1mb3ItdGhlLXJvdGF0aW9uLXRlc3QtMzI=",
}, adminEnv...)

// keysConfig pushes to sink with payloads sealed under the keys ids, the
// first of which seals; id kN reads ${E2E_KEY_N}.
func keysConfig(sink string, ids ...string) string {
	var keys strings.Builder
	for _, id := range ids {
		fmt.Fprintf(&keys, "    - {id: %s, key: \"${E2E_KEY_%s}\"}\n", id, strings.TrimPrefix(id, "k"))
	}
	return `tokens:
  - {name: dashboard, role: read, secret: "${E2E_READ_TOKEN}"}
` + stripeSource + `destinations:
  - name: sink
    url: "` + sink + `/hooks"
    secret: "whsec_ZTJlLXNpbmstc2lnbmluZw=="
    sources: [stripe]
encryption:
  keys:
` + keys.String()
}

// TestKeysRotateUnderLoad rotates from k1 to k2 with `hookrelay keys
// rotate` while the relay ingests and delivers: afterwards the relay runs
// with k2 alone and every event, old or new, reads back and was delivered
// byte for byte.
func TestKeysRotateUnderLoad(t *testing.T) {
	t.Parallel()
	for _, driver := range testdb.Drivers() {
		t.Run(driver.Name, func(t *testing.T) {
			t.Parallel()
			sink := newListenServer(t, nil)
			db := driver.URL(t)
			bodies := map[string][]byte{} // by provider id
			body := func(id string) []byte {
				return fmt.Appendf(nil, "{\"id\":%q,\"type\":\"invoice.paid\",\"customer\":\"cus_%s\"}\n", id, id)
			}

			p := startRelay(t, db, keysConfig(sink.URL, "k1"), keysEnv)
			const old = 200
			for i := range old {
				id := fmt.Sprintf("evt_old_%d", i)
				bodies[id] = body(id)
				postSigned(t, p, bodies[id])
			}
			if code := p.stop(t); code != 0 {
				t.Fatalf("relay exit code %d", code)
			}

			p = startRelay(t, db, keysConfig(sink.URL, "k2", "k1"), keysEnv)
			r := wantRun(t, keysEnv, 0, "keys", "status", "--config", p.configPath)
			contains(t, "keys status before", r.stdout, "KEY", "k1", fmt.Sprint(old), "k2", "seals new rows")

			var (
				wg      sync.WaitGroup
				mu      sync.Mutex
				stop    = make(chan struct{})
				loadErr error
			)
			wg.Go(func() {
				for i := 0; ; i++ {
					select {
					case <-stop:
						return
					default:
					}
					id := fmt.Sprintf("evt_new_%d", i)
					if err := trySignedPost(p, body(id), nil); err != nil {
						mu.Lock()
						loadErr = err
						mu.Unlock()
						return
					}
					mu.Lock()
					bodies[id] = body(id)
					mu.Unlock()
					time.Sleep(5 * time.Millisecond) // paces the load: a steady stream across the rotation
				}
			})
			// Small batches with a pause, so that the run spans many posts.
			r = wantRun(t, keysEnv, 0, "keys", "rotate", "--config", p.configPath, "--batch", "5", "--pause", "10ms")
			mu.Lock()
			during := len(bodies) - old
			mu.Unlock()
			testkit.Eventually(t, 10*time.Second, "events posted after the run too", func() error {
				mu.Lock()
				defer mu.Unlock()
				after := len(bodies) - old - during
				return testkit.Check(after >= 5 || loadErr != nil, "%d posted after the run", after)
			})
			close(stop)
			wg.Wait()
			if loadErr != nil {
				t.Fatalf("load: %v", loadErr)
			}
			if during < 20 {
				t.Errorf("only %d events were posted while the rotation ran", during)
			}
			contains(t, "keys rotate", r.stdout, "events: ", "attempts: ", "done: every payload is under key k2",
				"no row is under k1 any more: it may be removed from encryption.keys")
			testkit.Eventually(t, 30*time.Second, "every event delivered", func() error {
				for id := range bodies {
					if len(sink.received(id)) == 0 {
						return fmt.Errorf("%s not delivered", id)
					}
				}
				return nil
			})
			if code := p.stop(t); code != 0 {
				t.Fatalf("relay exit code %d", code)
			}

			// k1 is gone: everything reads under k2 alone.
			p = startRelay(t, db, keysConfig(sink.URL, "k2"), keysEnv)
			r = wantRun(t, keysEnv, 0, "keys", "status", "--config", p.configPath)
			if strings.Contains(r.stdout, "k1") || strings.Contains(r.stdout, "(none)") {
				t.Errorf("keys status after the rotation:\n%s", r.stdout)
			}
			read := cliEnv(p, e2eReadToken)
			ids := strings.Fields(wantRun(t, read, 0, "events", "list", "--ids", "--limit", "1000").stdout)
			if len(ids) != len(bodies) {
				t.Fatalf("%d events stored, %d posted", len(ids), len(bodies))
			}
			for _, id := range []string{ids[0], ids[len(ids)/2], ids[len(ids)-1]} {
				raw := wantRun(t, read, 0, "events", "raw", id).stdout
				if !bytes.Equal([]byte(raw), bodies[providerID(raw)]) {
					t.Errorf("events raw %s = %q", id, raw)
				}
			}
			for id, want := range bodies {
				if got := sink.received(id); len(got) == 0 || !bytes.Equal(got[0].body, want) {
					t.Errorf("delivered %s: %d deliveries, first %q; want %q", id, len(got), firstBody(got), want)
				}
			}
		})
	}
}

// providerID is the "id" of a body keysConfig's test posts.
func providerID(body string) string {
	_, rest, _ := strings.Cut(body, `{"id":"`)
	id, _, _ := strings.Cut(rest, `"`)
	return id
}

// firstBody is the body of the first delivery of ds, or nil.
func firstBody(ds []listenDelivered) []byte {
	if len(ds) == 0 {
		return nil
	}
	return ds[0].body
}
