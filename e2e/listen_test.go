package e2e

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/signature"
	"github.com/hookrelay/hookrelay/internal/testkit"
	"github.com/hookrelay/hookrelay/internal/testkit/testdb"
)

// Secrets of the local development set-up: one pull destination and one
// consumer token per developer.
const (
	listenAdminToken   = "e2e-listen-admin-0123456789"
	listenAliceToken   = "e2e-listen-alice-0123456789"
	listenBobToken     = "e2e-listen-bob-0123456789"
	listenAliceSigning = "whsec_ZTJlLWFsaWNlLXNpZ24ta2V5"
	listenBobSigning   = "whsec_ZTJlLWJvYi1zaWduLWtleSEh"
)

// listenRelayConfig is a team's staging relay: Stripe in, a pull
// destination per developer.
const listenRelayConfig = `tokens:
  - {name: ops, role: admin, secret: "${E2E_LISTEN_ADMIN}"}
  - {name: alice, role: consumer, secret: "${E2E_ALICE_TOKEN}", destinations: [dev-alice]}
  - {name: bob, role: consumer, secret: "${E2E_BOB_TOKEN}", destinations: [dev-bob]}
` + stripeSource + `destinations:
  - name: dev-alice
    pull: true
    secret: "` + listenAliceSigning + `"
    sources: [stripe]
  - name: dev-bob
    pull: true
    secret: "` + listenBobSigning + `"
    sources: [stripe]
`

var listenRelayEnv = append([]string{
	"E2E_LISTEN_ADMIN=" + listenAdminToken, "E2E_ALICE_TOKEN=" + listenAliceToken, "E2E_BOB_TOKEN=" + listenBobToken,
}, stripeEnv...)

// startListen starts `hookrelay listen` against relay p with token, for
// destination, forwarding to url. It is killed at the end of the test if
// still running.
func startListen(t *testing.T, p *relayProc, token, destination, url string, extra ...string) *bgCmd {
	t.Helper()
	args := append([]string{"listen", "--destination", destination, "--forward-to", url, "--wait", "5s"}, extra...)
	return startBg(t, []string{"HOOKRELAY_SERVER=http://" + p.admin, "HOOKRELAY_TOKEN=" + token}, args...)
}

// listenDelivered is one request a developer's local server received.
type listenDelivered struct {
	header http.Header
	body   []byte
}

// listenServer is a developer's server on the laptop: it records what it
// receives, by provider event id, and answers with answer (200 when nil).
type listenServer struct {
	*httptest.Server
	answer func(w http.ResponseWriter, r *http.Request)
	mu     sync.Mutex
	got    map[string][]listenDelivered // guarded by mu
}

func newListenServer(t *testing.T, answer func(http.ResponseWriter, *http.Request)) *listenServer {
	t.Helper()
	s := &listenServer{answer: answer, got: map[string][]listenDelivered{}}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		id := r.Header.Get("Hookrelay-Event-Id")
		s.got[id] = append(s.got[id], listenDelivered{r.Header.Clone(), body})
		s.mu.Unlock()
		if s.answer != nil {
			s.answer(w, r)
			return
		}
		w.WriteHeader(http.StatusOK)
	}))
	t.Cleanup(s.Close)
	return s
}

// received returns what arrived for a provider event id.
func (s *listenServer) received(id string) []listenDelivered {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]listenDelivered(nil), s.got[id]...)
}

// listenPost posts body to the relay's Stripe source, signed as Stripe
// signs, and fails unless it is stored.
func listenPost(t *testing.T, p *relayProc, body []byte) {
	t.Helper()
	h, err := signature.Sign(signature.Options{Scheme: "stripe", Secrets: []string{stripeSecret}}, 0, signature.Message{Body: body})
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequest(http.MethodPost, "http://"+p.public+"/webhooks/stripe", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range h {
		req.Header[k] = v
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := (&http.Client{Timeout: 10 * time.Second}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	answer, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("post: %d %s", resp.StatusCode, answer)
	}
}

// listenStats reads one destination's counts from the admin API.
func listenStats(t *testing.T, p *relayProc, dest string) destStats {
	t.Helper()
	return adminStats(t, p, listenAdminToken)[dest]
}

// listenVerifies reports whether d carries a valid Standard Webhooks signature of
// its body under secret.
func listenVerifies(t *testing.T, d listenDelivered, secret string) bool {
	t.Helper()
	scheme, err := signature.New(signature.Options{Scheme: "standard", Secrets: []string{secret}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = scheme.Verify(signature.Request{Header: d.header, Body: d.body})
	return err == nil
}

// TestListenTwoDevelopers is the README's local development set-up: one
// relay, a pull destination and a consumer token per developer, and each
// developer's `hookrelay listen` forwarding to a server on the laptop.
func TestListenTwoDevelopers(t *testing.T) {
	t.Parallel()
	for _, driver := range testdb.Drivers() {
		t.Run(driver.Name, func(t *testing.T) {
			t.Parallel()
			p := startRelay(t, driver.URL(t), listenRelayConfig, listenRelayEnv)
			// Alice's server calls customer.* events stale; Bob's takes all.
			alice := newListenServer(t, func(w http.ResponseWriter, r *http.Request) {
				if strings.HasPrefix(r.Header.Get("Hookrelay-Event-Type"), "customer.") {
					w.Header().Set("hookrelay-outcome", "skipped")
				}
				w.WriteHeader(http.StatusNoContent)
			})
			bob := newListenServer(t, nil)

			// A consumer token cannot claim another developer's destination,
			// nor can an unknown token; a filter flag is refused outright.
			r := run(t, []string{"HOOKRELAY_SERVER=http://" + p.admin, "HOOKRELAY_TOKEN=" + listenAliceToken},
				"listen", "--destination", "dev-bob", "--forward-to", alice.URL)
			if r.code != 1 || !strings.Contains(r.stderr, "may not claim from dev-bob (403)") {
				t.Errorf("alice's token on dev-bob: exit %d, stderr %q", r.code, r.stderr)
			}
			r = run(t, []string{"HOOKRELAY_SERVER=http://" + p.admin, "HOOKRELAY_TOKEN=nope"},
				"listen", "--destination", "dev-bob", "--forward-to", bob.URL)
			if r.code != 1 || !strings.Contains(r.stderr, "refused the token (401)") {
				t.Errorf("unknown token: exit %d, stderr %q", r.code, r.stderr)
			}
			r = run(t, []string{"HOOKRELAY_SERVER=http://" + p.admin, "HOOKRELAY_TOKEN=" + listenAliceToken},
				"listen", "--destination", "dev-alice", "--forward-to", alice.URL, "--type", "invoice.*")
			if r.code != 2 || !strings.Contains(r.stderr, "types: on the destination") {
				t.Errorf("--type: exit %d, stderr %q", r.code, r.stderr)
			}

			// Alice listens; three events arrive.
			al := startListen(t, p, listenAliceToken, "dev-alice", alice.URL)
			bodies := map[string][]byte{}
			post := func(id, typ string) {
				// Odd bytes on purpose: they must reach both laptops unchanged.
				bodies[id] = fmt.Appendf(nil, "{\"id\":%q,  \"type\":%q,\r\n \"created\":%d, \"note\":\"caf\u00e9 \\u00e9 \\/\"}\n\n", id, typ, time.Now().Unix())
				listenPost(t, p, bodies[id])
			}
			post("evt_listen_1", "invoice.paid")
			post("evt_listen_2", "customer.updated")
			post("evt_listen_3", "invoice.paid")
			testkit.Eventually(t, 15*time.Second, "alice to receive three events", func() error {
				n1, n2, n3 := len(alice.received("evt_listen_1")), len(alice.received("evt_listen_2")), len(alice.received("evt_listen_3"))
				return testkit.Check(n1 > 0 && n2 > 0 && n3 > 0, "received each %d, %d, %d times", n1, n2, n3)
			})

			// Bob starts after they arrived: they wait for him.
			bl := startListen(t, p, listenBobToken, "dev-bob", bob.URL)
			post("evt_listen_4", "invoice.paid")
			for id := range bodies {
				testkit.Eventually(t, 15*time.Second, "both to receive "+id, func() error {
					a, b := len(alice.received(id)), len(bob.received(id))
					return testkit.Check(a > 0 && b > 0, "alice received it %d times, bob %d", a, b)
				})
			}

			for id, body := range bodies {
				a, b := alice.received(id), bob.received(id)
				if len(a) != 1 || len(b) != 1 {
					t.Errorf("%s: alice received it %d times, bob %d, want once each", id, len(a), len(b))
					continue
				}
				for _, c := range []struct {
					who          string
					d            listenDelivered
					secret, not  string
					wantAttempts string
				}{{"alice", a[0], listenAliceSigning, listenBobSigning, "1"}, {"bob", b[0], listenBobSigning, listenAliceSigning, "1"}} {
					if !bytes.Equal(c.d.body, body) {
						t.Errorf("%s: %s received %q, want %q", id, c.who, c.d.body, body)
					}
					if !listenVerifies(t, c.d, c.secret) {
						t.Errorf("%s: %s's delivery does not verify with the destination's secret", id, c.who)
					}
					if listenVerifies(t, c.d, c.not) {
						t.Errorf("%s: %s's delivery listenVerifies with the other developer's secret", id, c.who)
					}
					if got := c.d.header.Get("Hookrelay-Source"); got != "stripe" {
						t.Errorf("%s: %s: hookrelay-source %q", id, c.who, got)
					}
					if got := c.d.header.Get("Hookrelay-Attempt"); got != c.wantAttempts {
						t.Errorf("%s: %s: hookrelay-attempt %q, want %s", id, c.who, got, c.wantAttempts)
					}
					if got := c.d.header.Get("Content-Type"); got != "application/json" {
						t.Errorf("%s: %s: content-type %q", id, c.who, got)
					}
				}
				if wa, wb := a[0].header.Get("Webhook-Id"), b[0].header.Get("Webhook-Id"); wa == "" || wa != wb {
					t.Errorf("%s: webhook-id %q for alice, %q for bob: want the event's one id", id, wa, wb)
				}
			}

			// Each outcome is recorded: Alice's stale event skipped.
			testkit.Eventually(t, 10*time.Second, "the outcomes recorded", func() error {
				a, b := listenStats(t, p, "dev-alice"), listenStats(t, p, "dev-bob")
				return testkit.Check(a["done"] == 3 && a["skipped"] == 1 && b["done"] == 4, "dev-alice %v, dev-bob %v", a, b)
			})
			// One line per event: time, source, type, provider id, local
			// status, duration, outcome.
			lines := strings.Split(strings.TrimSpace(al.stdout.String()), "\n")
			if len(lines) != 4 {
				t.Errorf("alice's listener printed %d lines, want 4:\n%s", len(lines), al.stdout.String())
			}
			for _, line := range lines {
				f := strings.Fields(line)
				if len(f) < 7 || f[1] != "stripe" || !strings.HasPrefix(f[3], "evt_listen_") || f[4] != "204" {
					t.Errorf("alice's line %q", line)
				}
			}
			contains(t, "alice's lines", al.stdout.String(), "customer.updated  evt_listen_2  204", "skipped")

			if code := al.stopWith(t, syscall.SIGTERM); code != 0 {
				t.Errorf("alice's listener exit %d after SIGTERM", code)
			}
			if code := bl.stopWith(t, syscall.SIGINT); code != 0 {
				t.Errorf("bob's listener exit %d after SIGINT", code)
			}
			contains(t, "bob's messages", bl.stderr.String(), "listening on dev-bob", "stopped")
		})
	}
}

// TestListenStopHandsBack stops a listener while it forwards the first of
// three events it holds: it finishes that one, hands the other two back,
// and exits 0; the next listener gets them at once, not after the lease.
func TestListenStopHandsBack(t *testing.T) {
	t.Parallel()
	for _, driver := range testdb.Drivers() {
		t.Run(driver.Name, func(t *testing.T) {
			t.Parallel()
			p := startRelay(t, driver.URL(t), listenRelayConfig, listenRelayEnv)
			inHand, finish := make(chan struct{}, 1), make(chan struct{})
			slow := newListenServer(t, func(w http.ResponseWriter, r *http.Request) {
				select {
				case inHand <- struct{}{}:
					<-finish
				default:
				}
				w.WriteHeader(http.StatusOK)
			})
			client := &http.Client{Timeout: 10 * time.Second}
			url := "http://" + p.public + "/webhooks/stripe"
			for i := range 3 {
				if status, err := postStripe(client, url, fmt.Sprintf("evt_stop_%d", i)); err != nil || status != 200 {
					t.Fatalf("post: %d %v", status, err)
				}
			}

			first := startListen(t, p, listenAliceToken, "dev-alice", slow.URL)
			select {
			case <-inHand:
			case <-time.After(15 * time.Second):
				t.Fatal("the listener forwarded nothing within 15s")
			}
			if s := listenStats(t, p, "dev-alice"); s["processing"] != 3 {
				t.Fatalf("while forwarding the first: %v, want the three held", s)
			}
			if err := first.Send(syscall.SIGINT); err != nil {
				t.Fatal(err)
			}
			testkit.Eventually(t, 10*time.Second, "the listener to take Ctrl-C", func() error {
				return testkit.Check(strings.Contains(first.stderr.String(), "stopping:"), "stderr: %q", first.stderr.String())
			})
			close(finish)
			if code := first.wait(t, 15*time.Second); code != 0 {
				t.Errorf("exit %d after Ctrl-C, want 0", code)
			}
			if n := strings.Count(first.stdout.String(), "\n"); n != 1 || !strings.Contains(first.stdout.String(), "200") {
				t.Errorf("the stopped listener printed %d lines, want the one it finished:\n%s", n, first.stdout.String())
			}
			if s := listenStats(t, p, "dev-alice"); s["done"] != 1 || s["pending"] != 2 || s["processing"] != 0 {
				t.Errorf("after Ctrl-C: %v, want 1 done and 2 pending", s)
			}

			next := newListenServer(t, nil)
			second := startListen(t, p, listenAliceToken, "dev-alice", next.URL)
			testkit.Eventually(t, 10*time.Second, "the handed-back events to reach the next listener", func() error {
				n := 0
				for i := range 3 {
					n += len(next.received(fmt.Sprintf("evt_stop_%d", i)))
				}
				return testkit.Check(n == 2, "%d reached it", n)
			})
			if code := second.stopWith(t, syscall.SIGTERM); code != 0 {
				t.Errorf("second listener exit %d", code)
			}
		})
	}
}

// TestListenKilledLeaseComesBack kills a listener with SIGKILL while it
// forwards an event: the relay hands the event out again when the claim's
// lease (the shortest allowed, 20s) runs out, as attempt 2.
func TestListenKilledLeaseComesBack(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("waits for a 20s lease")
	}
	for _, driver := range testdb.Drivers() {
		t.Run(driver.Name, func(t *testing.T) {
			t.Parallel()
			p := startRelay(t, driver.URL(t), listenRelayConfig, listenRelayEnv)
			inHand := make(chan struct{}, 1)
			hang := newListenServer(t, func(w http.ResponseWriter, r *http.Request) {
				inHand <- struct{}{}
				<-r.Context().Done() // until the listener is gone
			})
			killed := startListen(t, p, listenBobToken, "dev-bob", hang.URL, "--lease", "20s")
			status, err := postStripe(&http.Client{Timeout: 10 * time.Second}, "http://"+p.public+"/webhooks/stripe", "evt_killed")
			if err != nil || status != 200 {
				t.Fatalf("post: %d %v", status, err)
			}
			select {
			case <-inHand:
			case <-time.After(15 * time.Second):
				t.Fatal("the listener forwarded nothing within 15s")
			}
			if code := killed.stopWith(t, syscall.SIGKILL); code != -1 {
				t.Fatalf("exit code %d after SIGKILL", code)
			}
			killedAt := time.Now()

			next := newListenServer(t, nil)
			second := startListen(t, p, listenBobToken, "dev-bob", next.URL)
			testkit.Eventually(t, 40*time.Second, "the held event to come back after its lease", func() error {
				return testkit.Check(len(next.received("evt_killed")) > 0, "not received; dev-bob: %v", listenStats(t, p, "dev-bob"))
			})
			if waited := time.Since(killedAt); waited < 10*time.Second {
				t.Errorf("the held event came back %s after the kill, before its lease ran out", waited)
			}
			d := next.received("evt_killed")[0]
			if got := d.header.Get("Hookrelay-Attempt"); got != "2" {
				t.Errorf("hookrelay-attempt %q, want 2", got)
			}
			if !listenVerifies(t, d, listenBobSigning) {
				t.Error("the delivery after the lease does not verify with dev-bob's secret")
			}
			testkit.Eventually(t, 10*time.Second, "the delivery recorded done", func() error {
				s := listenStats(t, p, "dev-bob")
				return testkit.Check(s["done"] == 1, "dev-bob: %v", s)
			})
			if code := second.stopWith(t, syscall.SIGTERM); code != 0 {
				t.Errorf("second listener exit %d", code)
			}
		})
	}
}
