package reliability

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/adminwire"
	"github.com/hookrelay/hookrelay/internal/store"
	"github.com/hookrelay/hookrelay/internal/testkit"
	"github.com/hookrelay/hookrelay/internal/testkit/relayproc"
	"github.com/hookrelay/hookrelay/internal/testkit/testdb"
)

// Secrets of the three-node fleet beyond relayEnv's.
const (
	stripeNextSecret = "whsec_cmVsaWFiaWxpdHktc3RyaXBlLW5leHQ="
	fleetOpsToken    = "ops"
	fleetViewerToken = "viewer"
)

// threeNodeEnv is the environment of every node of TestFleetOfThree.
var threeNodeEnv = append([]string{"REL_STRIPE_NEXT=" + stripeNextSecret, "REL_GITHUB_SECRET=" + githubSecret}, relayEnv...)

// fleetSpec is what the fleet's config files say, each node's file with its
// own listeners: the secrets the stripe source accepts and the tokens.
type fleetSpec struct {
	stripeSecrets []string // environment variable names, newest first
	tokens        []string
	sink, alerts  string
}

// yaml returns the config text after the database and listeners.
func (s fleetSpec) yaml() string {
	var b strings.Builder
	secrets := make([]string, len(s.stripeSecrets))
	for i, name := range s.stripeSecrets {
		secrets[i] = fmt.Sprintf(`"${%s}"`, name)
	}
	fmt.Fprintf(&b, `sources:
  - {name: stripe, verify: stripe, secrets: [%s]}
  - {name: watchdog, verify: stripe, secrets: ["${REL_STRIPE_SECRET}"]}
  - {name: github, verify: github, secrets: ["${REL_GITHUB_SECRET}"]}
destinations:
  - {name: ledger, url: %[2]q, secret: "${REL_SINK_SECRET}", sources: [stripe], timeout: 2s, max_attempts: 1000, backoff: [100ms, 1s], concurrency: 8}
  - {name: mailer, url: %[3]q, secret: "${REL_SINK_SECRET}", sources: [stripe], timeout: 2s, max_attempts: 1000, backoff: [100ms, 1s], concurrency: 8}
  - {name: refused, url: %[4]q, secret: "${REL_SINK_SECRET}", sources: [github], max_attempts: 1}
  - {name: archive, url: %[5]q, secret: "${REL_SINK_SECRET}", sources: [github], max_attempts: 10, backoff: [1h]}
fleet: {runner_lease: %[6]s}
alerts:
  url: %[7]q
  signature_failures: {rate: 1/m, window: 10m}
log: {level: info}
tokens:
`, strings.Join(secrets, ", "), s.sink+"/ledger", s.sink+"/mailer", s.sink+"/refused", s.sink+"/archive", fleetLease, s.alerts)
	for _, tok := range s.tokens {
		role := "admin"
		if tok == fleetViewerToken {
			role = "read"
		}
		fmt.Fprintf(&b, "  - {name: %s, role: %s, secret: %q}\n", tok, role, fleetToken(tok))
	}
	return b.String()
}

// threeNodes is the fleet under test: its database, what its files say,
// and its nodes.
type threeNodes struct {
	db      string
	spec    fleetSpec
	nodes   []*relayProcess
	mu      sync.Mutex
	started []*relayProcess // every process started, killed at the test's end; guarded by mu
}

// rewrite writes spec into every node's config file (read at its next
// start or reload).
func (f *threeNodes) rewrite(t *testing.T, spec fleetSpec) {
	t.Helper()
	f.spec = spec
	for i, p := range f.nodes {
		o := p.Options
		o.Config = spec.yaml()
		if err := os.WriteFile(o.ConfigPath, []byte(relayproc.ConfigYAML(f.db, o.Public, o.Admin, o.Config)), 0o600); err != nil {
			t.Fatal(err)
		}
		f.nodes[i].Options = o
	}
}

// TestFleetOfThree runs three relays on one PostgreSQL database, as behind
// a load balancer, and checks through each node's public and admin ports
// that the three are one relay: started at once on an empty database they
// migrate it once and elect one runner; events posted round-robin, one
// node SIGKILLed and restarted among them, are stored once and delivered
// once per destination (a delivery the kill cut short is sent again, as
// at-least-once allows, and its lost attempt is counted); one captured
// request raced to two nodes is stored once, 50 times; the shipped
// dashboard's dead and backlog panels show the database's counts, not
// three times them; bad signatures spread over the nodes raise one alert,
// by the fleet's total; a replay job started on one node is seen with its
// progress on another and cancelled through the third, and one whose node
// is SIGKILLed is finished by another, the audit log naming the takeover;
// a console session
// opened on one node opens all three, and a logout or a token revoked
// through one node holds on all; a stripe secret rotated by one node's
// reload is accepted by all.
func TestFleetOfThree(t *testing.T) {
	t.Parallel()
	f := &threeNodes{db: testdb.PostgresDatabaseURL(t)}
	sink := newReceiptSink(t)
	alerts := newAlertSink(t)
	f.spec = fleetSpec{
		stripeSecrets: []string{"REL_STRIPE_SECRET"}, tokens: []string{fleetOpsToken, fleetViewerToken},
		sink: sink.srv.URL, alerts: alerts.srv.URL,
	}
	f.startAtOnce(t)

	t.Run("migrated once, one runner", f.migratedOnce)
	t.Run("round-robin with a node killed", func(t *testing.T) { f.roundRobinWithKill(t, sink) })
	t.Run("a captured request raced", f.capturedRequestRaced)
	t.Run("dashboard counts", func(t *testing.T) { f.dashboardCounts(t) })
	t.Run("one signature alert", func(t *testing.T) { f.oneSignatureAlert(t, alerts) })
	t.Run("a job across nodes", f.jobAcrossNodes)
	t.Run("a job whose node is killed", f.jobTakenOver)
	t.Run("console sessions", f.consoleSessions)
	t.Run("secret rotated through one node", f.secretRotated)
	t.Run("one runner and one pruner at the end", func(t *testing.T) {
		waitOneRunner(t, 2*fleetLease+5*time.Second, f.nodes)
		f.onePruner(t)
	})
}

// startAtOnce starts the three nodes at the same moment on the empty
// database, each with a config file of its own.
func (f *threeNodes) startAtOnce(t *testing.T) {
	t.Helper()
	t.Cleanup(func() {
		for _, p := range f.started {
			if !p.Exited() {
				p.Kill()
			}
			if t.Failed() {
				t.Logf("node %s (pid %d) logs (tail):\n%s", p.admin, p.Pid(), p.Tail(40))
			}
		}
	})
	f.nodes = make([]*relayProcess, 3)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range f.nodes {
		o := relayproc.RelayOptions{
			Binary: binary, ConfigPath: filepath.Join(t.TempDir(), "hookrelay.yaml"), Database: f.db,
			Config: f.spec.yaml(), Env: threeNodeEnv, ReadyTimeout: 60 * time.Second,
		}
		wg.Go(func() {
			<-start
			f.nodes[i] = f.start(t, o)
		})
	}
	close(start)
	wg.Wait()
	for i, p := range f.nodes {
		if p == nil {
			t.Fatalf("node %d did not start", i)
		}
	}
}

// start starts a node with o, kept running until the whole test ends; it
// returns nil, and marks t failed, when the node does not start.
func (f *threeNodes) start(t *testing.T, o relayproc.RelayOptions) *relayProcess {
	r, err := relayproc.StartRelay(context.Background(), o)
	if err != nil {
		t.Errorf("start a node: %v", err)
		return nil
	}
	p := &relayProcess{Relay: r, public: r.Options.Public, admin: r.Options.Admin}
	f.mu.Lock()
	f.started = append(f.started, p)
	f.mu.Unlock()
	return p
}

// migrationLine finds what a node logs of each migration it applied.
var migrationLine = regexp.MustCompile(`"msg":"migration applied"[^\n]*"migration":"([^"]+)"`)

// migratedOnce checks that the nodes' logs name every migration the
// database records exactly once between them, and that one node is the
// runner.
func (f *threeNodes) migratedOnce(t *testing.T) {
	applied := map[string]int{}
	appliers := 0
	for _, p := range f.nodes {
		ms := migrationLine.FindAllStringSubmatch(p.Log(), -1)
		if len(ms) > 0 {
			appliers++
		}
		for _, m := range ms {
			applied[m[1]]++
		}
	}
	recorded := migrationsRecorded(t, f.db)
	for name, n := range applied {
		if n != 1 {
			t.Errorf("migration %s applied %d times", name, n)
		}
	}
	if appliers != 1 || len(applied) != recorded || recorded == 0 {
		t.Errorf("%d nodes applied %d migrations; the database records %d; want one node to apply them all", appliers, len(applied), recorded)
	}
	runner := waitOneRunner(t, 15*time.Second, f.nodes)
	testkit.Eventually(t, 15*time.Second, "the runner's first retention pass", func() error {
		n := prunerPasses(scrapeMetrics(t, runner.admin))
		return testkit.Check(n > 0, "%d passes", n)
	})
	f.onePruner(t)
}

// onePruner checks that only the nodes that have been the fleet's runner
// ran retention passes.
func (f *threeNodes) onePruner(t *testing.T) {
	t.Helper()
	for _, p := range f.nodes {
		wasRunner := strings.Contains(p.Log(), `"msg":"fleet runner is this process"`)
		if n := prunerPasses(scrapeMetrics(t, p.admin)); n > 0 && !wasRunner {
			t.Errorf("node %s, never the fleet's runner, ran %d retention passes", p.admin, n)
		}
	}
}

// prunerPasses returns the retention passes a node's /metrics count.
func prunerPasses(metrics string) int {
	n := 0
	for l := range strings.Lines(metrics) {
		if rest, ok := strings.CutPrefix(l, "hookrelay_retention_passes_total{"); ok {
			_, v, _ := strings.Cut(rest, "} ")
			k, _ := strconv.Atoi(strings.TrimSpace(v))
			n += k
		}
	}
	return n
}

// roundRobinWithKill posts events to the nodes in turn while one of them is
// SIGKILLed and restarted: a post that finds its node down goes to the
// next, as a load balancer retries. Every event is stored once, has one
// delivery per destination, done, and reached both destinations; an
// event a destination received twice is one whose delivery counted the
// lost attempt of the kill.
func (f *threeNodes) roundRobinWithKill(t *testing.T, sink *receiptSink) {
	const events = 240
	victim := f.nodes[1]
	client := &http.Client{Timeout: 10 * time.Second}
	for i := range events {
		switch i {
		case events / 3:
			victim.kill(t) // its leased deliveries in flight
		case 2 * events / 3:
			f.nodes[1] = f.start(t, victim.Options)
			if f.nodes[1] == nil {
				t.FailNow()
			}
		}
		id := fmt.Sprintf("evt_fleet_%03d", i)
		for try := 0; ; try++ {
			p := f.nodes[(i+try)%len(f.nodes)]
			code, err := trySigned(client, p.ingestURL(), stripeSecret, id)
			if err == nil && code == http.StatusOK {
				break
			}
			if try > 2*len(f.nodes) {
				t.Fatalf("%s: no node took it (last: %d %v)", id, code, err)
			}
		}
	}

	for _, dest := range []string{"ledger", "mailer"} {
		testkit.Eventually(t, 60*time.Second, "every event at "+dest, func() error {
			n := sink.count(dest)
			return testkit.Check(n == events, "%s has %d of %d events", dest, n, events)
		})
	}
	// A delivery the killed node had leased is done once its lease has run
	// out (twice the destination's timeout, plus 30 s) and another node
	// has pushed it again.
	st := openStore(t, f.db)
	testkit.Eventually(t, 90*time.Second, "every delivery done", func() error {
		stats, err := st.Stats(t.Context(), time.Now())
		if err != nil {
			return err
		}
		ledger, mailer := stats.Destinations["ledger"].Counts[store.StatusDone], stats.Destinations["mailer"].Counts[store.StatusDone]
		return testkit.Check(ledger == events && mailer == events, "done: ledger %d, mailer %d of %d", ledger, mailer, events)
	})
	if n, err := st.CountEvents(t.Context(), "stripe"); err != nil || n != events {
		t.Fatalf("%d stripe events stored (%v), want %d", n, err, events)
	}
	redelivered := 0
	for i := range events {
		id := fmt.Sprintf("evt_fleet_%03d", i)
		ev, err := st.EventByProviderID(t.Context(), "stripe", id)
		if err != nil {
			t.Fatalf("%s: %v", id, err)
		}
		ds, err := st.EventDeliveries(t.Context(), ev.ID)
		if err != nil {
			t.Fatal(err)
		}
		if len(ds) != 2 {
			t.Errorf("%s has %d deliveries, want one per destination", id, len(ds))
		}
		for _, d := range ds {
			if d.Status != store.StatusDone {
				t.Errorf("%s to %s: %s", id, d.Destination, d.Status)
			}
			if got := sink.received(d.Destination, id); got > 1 {
				redelivered++
				if d.Attempts < got {
					t.Errorf("%s reached %s %d times in %d attempts: a second node sent it while the first held it", id, d.Destination, got, d.Attempts)
				}
			}
		}
	}
	t.Logf("RELIABILITY fleet-of-three events=%d nodes=3 kills=1 stored=%d redelivered_after_kill=%d", events, events, redelivered)
}

// capturedRequestRaced posts one signed GitHub delivery to two nodes at
// once, 50 times under two delivery ids: one is stored, the other answered
// 409 replayed_signature.
func (f *threeNodes) capturedRequestRaced(t *testing.T) {
	const rounds = 50
	client := &http.Client{Timeout: 10 * time.Second}
	pair := [2]*relayProcess{f.nodes[0], f.nodes[2]}
	for round := range rounds {
		body := fmt.Appendf(nil, `{"ref":"refs/heads/main","after":"%040x"}`, round)
		ids := [2]string{fmt.Sprintf("fleet-%d-a", round), fmt.Sprintf("fleet-%d-b", round)}
		got := postBoth(t, client, pair, ids, body)
		if want := map[string]int{"200 stored": 1, "409 replayed_signature": 1}; fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("round %d: answers %v, want %v", round, got, want)
		}
	}
	st := openStore(t, f.db)
	if n, err := st.CountEvents(t.Context(), "github"); err != nil || n != rounds {
		t.Errorf("%d github events stored (%v), want %d: one a round", n, err, rounds)
	}
}

// trySigned posts a Stripe event with id, signed with secret, to url, and
// returns the status, or the error of a node that is down.
func trySigned(client *http.Client, url, secret, id string) (int, error) {
	req, err := stripeRequest(context.Background(), url, secret, id)
	if err != nil {
		return 0, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, err
	}
	resp.Body.Close()
	return resp.StatusCode, nil
}

// receiptSink is the destinations' server: it counts each provider event
// id each destination received outside replays, answers refused's and
// archive's deliveries 400 and 503, and the others 200.
type receiptSink struct {
	srv *httptest.Server

	mu   sync.Mutex
	seen map[string]map[string]int // destination → provider event id → receipts; guarded by mu
}

func newReceiptSink(t *testing.T) *receiptSink {
	t.Helper()
	s := &receiptSink{seen: map[string]map[string]int{}}
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		dest := strings.TrimPrefix(r.URL.Path, "/")
		switch dest {
		case "refused":
			w.WriteHeader(http.StatusBadRequest)
			return
		case "archive":
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		if r.Header.Get("hookrelay-replay") == "0" {
			s.mu.Lock()
			if s.seen[dest] == nil {
				s.seen[dest] = map[string]int{}
			}
			s.seen[dest][r.Header.Get("hookrelay-event-id")]++
			s.mu.Unlock()
		}
	}))
	t.Cleanup(s.srv.Close)
	return s
}

// count returns how many distinct events dest received.
func (s *receiptSink) count(dest string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.seen[dest])
}

// received returns how many times dest received the event with id.
func (s *receiptSink) received(dest, id string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.seen[dest][id]
}

// adminCall makes an admin API call to node with token's secret and
// decodes a 2xx answer's JSON into out.
func adminCall(t *testing.T, node *relayProcess, token, method, path string, body any, out any) int {
	t.Helper()
	code, err := adminJSON(node.admin, fleetToken(token), method, path, body, out)
	if err != nil {
		t.Fatalf("%s %s on %s: %v", method, path, node.admin, err)
	}
	return code
}

// jobAcrossNodes starts a replay job through node 0, sees it running with
// its progress through node 1, cancels it through node 2, and reads that
// it ended cancelled, by whom, with what it did, on every node.
func (f *threeNodes) jobAcrossNodes(t *testing.T) {
	a, b, c := f.nodes[0], f.nodes[1], f.nodes[2]
	var started adminwire.Job
	req := map[string]any{"destination": "ledger", "source": "stripe", "max_batch": 1}
	if code := adminCall(t, a, fleetOpsToken, http.MethodPost, "/api/v1/jobs/replay", req, &started); code != http.StatusAccepted {
		t.Fatalf("start a replay job on node 0: %d", code)
	}
	var seen adminwire.Job
	testkit.Eventually(t, 30*time.Second, "the job's progress seen through node 1", func() error {
		adminCall(t, b, fleetViewerToken, http.MethodGet, "/api/v1/jobs/"+started.ID, nil, &seen)
		return testkit.Check(seen.Done > 0 && seen.Total > 0, "%+v", seen)
	})
	if seen.Node != started.Node || seen.Node == "" {
		t.Errorf("node 1 shows the job run by %q, want node 0's %q", seen.Node, started.Node)
	}
	var cancelled adminwire.Job
	if code := adminCall(t, c, fleetOpsToken, http.MethodPost, "/api/v1/jobs/"+started.ID+"/cancel", nil, &cancelled); code != http.StatusOK {
		t.Fatalf("cancel through node 2: %d", code)
	}
	for _, p := range f.nodes {
		var ended adminwire.Job
		testkit.Eventually(t, 30*time.Second, "the job cancelled, seen through "+p.admin, func() error {
			adminCall(t, p, fleetViewerToken, http.MethodGet, "/api/v1/jobs/"+started.ID, nil, &ended)
			return testkit.Check(ended.State == adminwire.JobCancelled, "%+v", ended)
		})
		if ended.CancelledBy != fleetOpsToken || ended.Done >= ended.Total || ended.Replay == nil || ended.Replay.Rearmed == 0 {
			t.Errorf("through %s: %+v; want cancelled by %s part way, with what it re-armed", p.admin, ended, fleetOpsToken)
		}
	}
}

// jobTakenOver starts a replay job through node 0 and kills node 0 with
// SIGKILL once its walk has begun: another node takes the job over once
// its lease has run out and finishes it, and the audit log, read through
// the third node, names the takeover. Node 0 is started again.
func (f *threeNodes) jobTakenOver(t *testing.T) {
	a := f.nodes[0]
	var started adminwire.Job
	req := map[string]any{"destination": "mailer", "source": "stripe", "max_batch": 1}
	if code := adminCall(t, a, fleetOpsToken, http.MethodPost, "/api/v1/jobs/replay", req, &started); code != http.StatusAccepted {
		t.Fatalf("start a replay job on node 0: %d", code)
	}
	testkit.Eventually(t, 30*time.Second, "node 0's walk to begin", func() error {
		j := jobOn(t, a, started.ID)
		return testkit.Check(j.Done > 0, "%s, %d done", j.State, j.Done)
	})
	a.kill(t)
	if j := jobOn(t, f.nodes[1], started.ID); j.FinishedAt != nil {
		t.Fatalf("the job ended before node 0 was killed: %+v", j)
	}
	var j adminwire.Job
	testkit.Eventually(t, 2*fleetLease+60*time.Second, "the job finished by another node", func() error {
		j = jobOn(t, f.nodes[1], started.ID)
		return testkit.Check(j.FinishedAt != nil, "%s on %s, %d of %d", j.State, j.Node, j.Done, j.Total)
	})
	if j.State != adminwire.JobDone || j.Done != j.Total || j.TakenOverFrom != started.Node || j.Node == started.Node {
		t.Errorf("job = %+v; want done by another node than %s, taken over from it", j, started.Node)
	}
	var log adminwire.AuditLog
	if code := adminCall(t, f.nodes[2], fleetOpsToken, http.MethodGet, "/api/v1/audit?since=2020-01-01T00:00:00Z", nil, &log); code != http.StatusOK {
		t.Fatalf("audit through node 2: %d", code)
	}
	takeovers := 0
	for _, e := range log.Entries {
		if e.Kind == store.AuditTakeover && e.Detail["job_id"] == j.ID {
			takeovers++
			if e.Detail["from_node"] != started.Node || e.Detail["to_node"] != j.Node {
				t.Errorf("takeover row = %+v", e)
			}
		}
	}
	if takeovers != 1 {
		t.Errorf("%d takeover rows of the job, want 1", takeovers)
	}
	if f.nodes[0] = f.start(t, a.Options); f.nodes[0] == nil {
		t.FailNow()
	}
}
