package e2e

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/adminwire"
	"github.com/hookrelay/hookrelay/internal/payloadcrypt"
	"github.com/hookrelay/hookrelay/internal/store"
	"github.com/hookrelay/hookrelay/internal/store/storeopen"
	"github.com/hookrelay/hookrelay/internal/testkit"
	"github.com/hookrelay/hookrelay/internal/testkit/testdb"
)

// copyStoreConfig routes events by type: done.* and failed.* to sink,
// retried 20s later; dead.* to deadend, which gives up at the first
// failure; held.* to held, paused; pull.* to the pull destination dev.
// Payloads are sealed.
func copyStoreConfig(sink string) string {
	return `tokens:
  - {name: ops, role: admin, secret: "${E2E_ADMIN_TOKEN}"}
  - {name: dashboard, role: read, secret: "${E2E_READ_TOKEN}"}
` + stripeSource + `destinations:
  - {name: sink, url: "` + sink + `/sink", secret: "whsec_c2luay1zaWduaW5n", sources: [stripe], types: ["done.*", "failed.*"], max_attempts: 3, backoff: [20s]}
  - {name: deadend, url: "` + sink + `/deadend", secret: "whsec_ZGVhZGVuZC1zaWdu", sources: [stripe], types: ["dead.*"], max_attempts: 1}
  - {name: held, url: "` + sink + `/held", secret: "whsec_aGVsZC1zaWduaW5n", sources: [stripe], types: ["held.*"]}
  - {name: dev, pull: true, secret: "whsec_ZGV2LXNpZ25pbmc=", sources: [stripe], types: ["pull.*"]}
encryption:
  keys:
    - {id: k1, key: "${E2E_PAYLOAD_KEY}"}
`
}

// copySink records what each destination received, by provider event id
// and phase, and fails failed.* events while the phase is 1.
type copySink struct {
	mu    sync.Mutex
	phase int
	got   map[string][]string // "phase path" → provider ids answered 200
	fails map[string]int      // provider id → answers 500
}

func (s *copySink) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	var e struct{ ID string }
	_ = json.Unmarshal(b, &e)
	s.mu.Lock()
	defer s.mu.Unlock()
	if r.URL.Path == "/deadend" || (s.phase == 1 && strings.HasPrefix(e.ID, "evt_failed")) {
		s.fails[e.ID]++
		w.WriteHeader(http.StatusInternalServerError)
		return
	}
	key := fmt.Sprintf("%d %s", s.phase, r.URL.Path)
	s.got[key] = append(s.got[key], e.ID)
}

// received returns the ids phase's deliveries to path answered 200,
// sorted.
func (s *copySink) received(phase int, path string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Sorted(slices.Values(s.got[fmt.Sprintf("%d %s", phase, path)]))
}

// TestCopyStoreSQLiteToPostgres moves a SQLite relay's data to PostgreSQL
// as the README says: a relay with events in every delivery state (done,
// failed, dead, pending behind a paused destination, skipped, purged,
// and processing under a pull consumer's lease) is stopped; copy-store
// refuses an unmigrated target, copies into a migrated one and refuses to
// copy twice; a relay on PostgreSQL then delivers exactly what was
// pending, failed or processing, each once, and nothing that was done,
// dead, skipped or purged; a stored event posted again is a duplicate;
// the events list is the same and an event still verifies.
func TestCopyStoreSQLiteToPostgres(t *testing.T) {
	t.Parallel()
	pgURL := testdb.PostgresURL(t)
	sqliteURL := testdb.SQLiteURL(t)
	sink := &copySink{phase: 1, got: map[string][]string{}, fails: map[string]int{}}
	srv := httptest.NewServer(sink)
	defer srv.Close()
	cfg := copyStoreConfig(srv.URL)
	env := append([]string{"E2E_PAYLOAD_KEY=" + sealedKey}, adminEnv...)

	// Phase 1: the SQLite relay builds every state.
	a := startRelay(t, sqliteURL, cfg, env)
	admin, read := cliEnv(a, e2eAdminToken), cliEnv(a, e2eReadToken)
	wantRun(t, admin, 0, "destinations", "pause", "held")
	post := func(p *relayProc, id, typ string) {
		postSigned(t, p, fmt.Appendf(nil, `{"id":%q,"type":%q,"created":%d}`, id, typ, time.Now().Unix()))
	}
	for _, e := range [][2]string{
		{"evt_done_1", "done.x"}, {"evt_done_2", "done.x"}, {"evt_failed_1", "failed.x"}, {"evt_failed_2", "failed.x"},
		{"evt_dead_1", "dead.x"}, {"evt_held_1", "held.x"}, {"evt_held_2", "held.x"}, {"evt_held_purged", "held.x"},
		{"evt_held_skipped", "held.x"}, {"evt_pull_1", "pull.x"}, {"evt_pull_2", "pull.x"},
	} {
		post(a, e[0], e[1])
	}
	src := openSealedStore(t, sqliteURL)
	// deliveryStatus reads the status of the event's one delivery, which
	// the wait below retries until it settles.
	deliveryStatus := func(st store.DB, providerID string) (store.DeliveryStatus, error) {
		e, err := st.EventByProviderID(t.Context(), "stripe", providerID)
		if err != nil {
			return "", fmt.Errorf("event %s: %w", providerID, err)
		}
		ds, err := st.EventDeliveries(t.Context(), e.ID)
		if err != nil || len(ds) != 1 {
			return "", fmt.Errorf("deliveries of %s: %v, %v", providerID, ds, err)
		}
		return ds[0].Status, nil
	}
	statusOf := func(st store.DB, providerID string) store.DeliveryStatus {
		status, err := deliveryStatus(st, providerID)
		if err != nil {
			t.Fatal(err)
		}
		return status
	}
	testkit.Eventually(t, 15*time.Second, "done, failed and dead settled on the SQLite relay", func() error {
		want := map[string]store.DeliveryStatus{"evt_done_1": store.StatusDone, "evt_done_2": store.StatusDone,
			"evt_failed_1": store.StatusFailed, "evt_failed_2": store.StatusFailed, "evt_dead_1": store.StatusDead}
		for id, status := range want {
			got, err := deliveryStatus(src, id)
			if err != nil {
				return err
			}
			if got != status {
				return fmt.Errorf("%s is %s, want %s", id, got, status)
			}
		}
		return nil
	})
	// A purge by value keys its audit record with the audit key, which
	// the copy must keep for the record to stay checkable.
	wantRun(t, admin, 0, "purge", "--source", "stripe", "--path", "id", "--value", "evt_held_purged", "--since", "-1h", "--reason", "erasure request 1", "--yes")
	auditKey, err := src.AuditKey(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	forged, err := http.Post("http://"+a.public+"/webhooks/stripe", "application/json", strings.NewReader(`{"id":"evt_forged"}`))
	if err != nil {
		t.Fatal(err)
	}
	forged.Body.Close()
	testkit.Eventually(t, 10*time.Second, "the rejection recorded", func() error {
		rs, err := src.Rejections(t.Context(), 10)
		if err != nil {
			return err
		}
		return testkit.Check(len(rs) == 1, "%d recorded", len(rs))
	})
	var skipped store.Event
	skipped, err = src.EventByProviderID(t.Context(), "stripe", "evt_held_skipped")
	if err != nil {
		t.Fatal(err)
	}
	ds, err := src.EventDeliveries(t.Context(), skipped.ID)
	if err != nil || len(ds) != 1 {
		t.Fatalf("deliveries of evt_held_skipped: %v, %v", ds, err)
	}
	wantRun(t, admin, 0, "destinations", "skip", fmt.Sprint(ds[0].ID))
	claimed := claimPull(t, a, 1, "10m")
	if !slices.Equal(claimed, []string{"evt_pull_1"}) {
		t.Fatalf("the pull consumer claimed %v, want evt_pull_1", claimed)
	}
	listed := wantRun(t, read, 0, "events", "list", "--ids").stdout
	if code := a.stop(t); code != 0 {
		t.Fatalf("the SQLite relay exited %d", code)
	}
	want := map[string]store.DeliveryStatus{
		"evt_done_1": store.StatusDone, "evt_failed_1": store.StatusFailed, "evt_dead_1": store.StatusDead,
		"evt_held_1": store.StatusPending, "evt_held_purged": store.StatusPurged, "evt_held_skipped": store.StatusSkipped,
		"evt_pull_1": store.StatusProcessing, "evt_pull_2": store.StatusPending,
	}
	for id, status := range want {
		if got := statusOf(src, id); got != status {
			t.Fatalf("before the copy %s is %s, want %s", id, got, status)
		}
	}
	src.Close()

	// The copy: refused before the target is migrated, done once it is,
	// refused a second time.
	pgConfig := writeConfig(t, pgURL, freeAddr(t), freeAddr(t), cfg)
	r := wantRun(t, nil, 1, "copy-store", "--from", sqliteURL, "--to", pgURL)
	contains(t, "copy-store into an unmigrated database", r.stderr, "the target database has", "pending migrations", "hookrelay migrate")
	wantRun(t, env, 0, "migrate", "--config", pgConfig)
	r = wantRun(t, nil, 0, "copy-store", "--from", sqliteURL, "--to", pgURL, "--batch", "2")
	contains(t, "copy-store", r.stdout, "events", "deliveries", "attempts", "instance_keys", "every table holds as many rows on both sides")
	t.Logf("copy-store:\n%s", r.stdout)
	r = wantRun(t, nil, 1, "copy-store", "--from", sqliteURL, "--to", pgURL)
	contains(t, "copy-store into a full database", r.stderr, "is not empty", "events (11)", "drop")

	// Phase 2: the PostgreSQL relay delivers what was due, once.
	sink.mu.Lock()
	sink.phase = 2
	sink.mu.Unlock()
	b := startRelay(t, pgURL, cfg, env)
	admin, read = cliEnv(b, e2eAdminToken), cliEnv(b, e2eReadToken)
	req := hostileStripe(t, b, fmt.Appendf(nil, `{"id":"evt_done_1","type":"done.x","created":%d}`, time.Now().Unix()), nil)
	status, _, answer, err := hostileDo(http.DefaultClient, req)
	if err != nil || status != http.StatusOK || !strings.Contains(string(answer), "duplicate") {
		t.Errorf("a stored event posted again to the PostgreSQL relay: %d %s %v, want 200 duplicate", status, answer, err)
	}
	if got := claimPull(t, b, 10, "1m"); !slices.Equal(got, []string{"evt_pull_1", "evt_pull_2"}) {
		t.Errorf("the pull consumer claimed %v from the PostgreSQL relay, want evt_pull_1 (processing) and evt_pull_2 (pending)", got)
	}
	testkit.Eventually(t, 60*time.Second, "the failed deliveries retried by the PostgreSQL relay", func() error {
		got := sink.received(2, "/sink")
		return testkit.Check(len(got) >= 2, "sink received %v", got)
	})
	if got := sink.received(2, "/held"); len(got) != 0 {
		t.Errorf("the paused destination received %v before it was resumed", got)
	}
	wantRun(t, admin, 0, "destinations", "resume", "held")
	// Once sink and held have nothing left to deliver, no delivery that
	// should not come can.
	waitSettled(t, b, e2eAdminToken, "sink")
	waitSettled(t, b, e2eAdminToken, "held")
	if got, want := sink.received(2, "/sink"), []string{"evt_failed_1", "evt_failed_2"}; !slices.Equal(got, want) {
		t.Errorf("sink received %v from the PostgreSQL relay, want %v once each", got, want)
	}
	if got, want := sink.received(2, "/held"), []string{"evt_held_1", "evt_held_2"}; !slices.Equal(got, want) {
		t.Errorf("held received %v from the PostgreSQL relay, want %v once each", got, want)
	}
	sink.mu.Lock()
	deadTries := sink.fails["evt_dead_1"]
	sink.mu.Unlock()
	if deadTries != 1 {
		t.Errorf("evt_dead_1 was tried %d times, want once, before the copy", deadTries)
	}
	all := slices.Concat(sink.received(1, "/sink"), sink.received(2, "/sink"), sink.received(2, "/held"))
	slices.Sort(all)
	if len(slices.Compact(slices.Clone(all))) != len(all) {
		t.Errorf("an event was delivered twice across the switch: %v", all)
	}

	if got := wantRun(t, read, 0, "events", "list", "--ids").stdout; got != listed {
		t.Errorf("events list on the PostgreSQL relay:\n%s\nwant, as on the SQLite relay:\n%s", got, listed)
	}
	ids := strings.Fields(listed)
	r = wantRun(t, read, 0, "verify", ids[len(ids)-1])
	contains(t, "verify on the PostgreSQL relay", r.stdout, "valid: the signature matches secret slot 0")
	dst := openSealedStore(t, pgURL)
	if key, err := dst.AuditKey(t.Context()); err != nil || !slices.Equal(key, auditKey) {
		t.Errorf("the PostgreSQL relay's audit key is %x (%v), want the SQLite relay's", key, err)
	}
	if rs, err := dst.Rejections(t.Context(), 10); err != nil || len(rs) != 1 {
		t.Errorf("the PostgreSQL relay's rejections: %v (%v), want the one from before", rs, err)
	}
	for id, status := range map[string]store.DeliveryStatus{
		"evt_done_1": store.StatusDone, "evt_dead_1": store.StatusDead, "evt_held_purged": store.StatusPurged,
		"evt_held_skipped": store.StatusSkipped, "evt_failed_1": store.StatusDone, "evt_held_1": store.StatusDone,
	} {
		if got := statusOf(dst, id); got != status {
			t.Errorf("on PostgreSQL %s is %s, want %s", id, got, status)
		}
	}
	if code := b.stop(t); code != 0 {
		t.Errorf("the PostgreSQL relay exited %d", code)
	}
}

// openSealedStore opens the relay's database with its payload key, to
// check what it holds.
func openSealedStore(t *testing.T, database string) store.DB {
	t.Helper()
	secret, err := payloadcrypt.DecodeKey(sealedKey)
	if err != nil {
		t.Fatal(err)
	}
	keys, err := payloadcrypt.NewRing([]payloadcrypt.Key{{ID: "k1", Secret: secret}})
	if err != nil {
		t.Fatal(err)
	}
	st, err := storeopen.OpenWith(t.Context(), database, storeopen.Options{Keys: keys}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	return st
}

// claimPull claims up to max deliveries of the pull destination dev with
// a lease of lease and returns their provider ids, sorted; it acks none.
func claimPull(t *testing.T, p *relayProc, max int, lease string) []string {
	t.Helper()
	status, answer := hostileAdmin(t, p, e2eAdminToken, "POST", fmt.Sprintf("/api/v1/destinations/dev/claim?max=%d&lease=%s&wait=2s", max, lease), "")
	var c adminwire.Claimed
	if status != http.StatusOK || json.Unmarshal(answer, &c) != nil {
		t.Fatalf("claim: %d %s", status, answer)
	}
	var ids []string
	for _, d := range c.Deliveries {
		ids = append(ids, d.ProviderEventID)
	}
	slices.Sort(ids)
	return ids
}

// TestCopyStoreUsage checks what copy-store says to a command line it
// cannot run, before it opens anything.
func TestCopyStoreUsage(t *testing.T) {
	t.Parallel()
	missing := testdb.SQLiteURL(t)
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"copy-store", "--from", missing}, 2, "want both --from and --to"},
		{[]string{"copy-store", "--from", missing, "--to", missing}, 2, "name the same database"},
		{[]string{"copy-store", "--from", missing, "--to", testdb.SQLiteURL(t), "--batch", "0"}, 2, "--batch 0: want 1 to 10000 rows"},
		{[]string{"copy-store", "--from", missing, "--to", testdb.SQLiteURL(t)}, 1, "no database at " + strings.TrimPrefix(missing, "sqlite:")},
	} {
		r := wantRun(t, nil, tc.code, tc.args...)
		contains(t, strings.Join(tc.args, " "), r.stderr, tc.want)
	}
	r := wantRun(t, nil, 0, "help", "copy-store")
	contains(t, "help copy-store", r.stdout, "Usage: hookrelay copy-store --from DATABASE --to DATABASE", "Example:")
}
