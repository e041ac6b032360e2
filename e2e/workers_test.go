package e2e

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/oklog/ulid/v2"

	"github.com/hookrelay/hookrelay/internal/delivery"
	"github.com/hookrelay/hookrelay/internal/store"
	"github.com/hookrelay/hookrelay/internal/testkit"
	"github.com/hookrelay/hookrelay/internal/testkit/testdb"
)

// sinkSecret signs what the test destinations receive.
const sinkSecret = "whsec_ZTJlLXNpbmstc2lnbmluZw=="

// pushDestination is the YAML of one push destination of the Stripe source.
func pushDestination(name, url string, concurrency int, backoff string, maxAttempts int) string {
	return fmt.Sprintf(`  - name: %s
    url: %q
    secret: %q
    sources: [stripe]
    timeout: 2s
    backoff: [%s]
    max_attempts: %d
    concurrency: %d
`, name, url, sinkSecret, backoff, maxAttempts, concurrency)
}

// TestWorkersShareOnePostgres runs one receiver and three worker processes
// on one PostgreSQL database and drains 20 000 deliveries to one
// destination while one worker is killed with SIGKILL: every delivery ends
// done and arrives, and only the killed worker's unfinished claims may
// arrive twice, once their lease has run out.
//
// 1 000 events go through the receiver; the other 19 000 are stored with
// store.Ingest in batches of 500 (the receiver's own call, which notifies
// the workers the same way), to keep the test short.
func TestWorkersShareOnePostgres(t *testing.T) {
	t.Parallel()
	const (
		total       = 20_000
		viaReceiver = 1_000
		batch       = 500
		concurrency = 16
		killAfter   = 3_000 // deliveries received before a worker is killed
	)
	db := testdb.PostgresURL(t)
	start := time.Now()
	// Answers take up to 20ms, so that a worker killed mid-run is all but
	// sure to hold claims whose requests are under way.
	sk := newSink(t, "", sinkSecret, 20*time.Millisecond)
	cfg := stripeSource + "destinations:\n" + pushDestination("sink", sk.url, concurrency, "200ms", 20) + "log:\n  level: warn\n"

	receiver := startRole(t, "receiver", db, cfg, stripeEnv) // migrates first
	var workers []*relayProc
	for range 3 {
		workers = append(workers, startRole(t, "worker", db, cfg, stripeEnv))
	}
	st := openStore(t, db)

	// The receiver's events and the stored ones go in at the same time,
	// while the workers drain.
	var recvIDs, bulkIDs []string
	for i := range viaReceiver {
		recvIDs = append(recvIDs, fmt.Sprintf("evt_workers_recv_%05d", i))
	}
	for i := range total - viaReceiver {
		bulkIDs = append(bulkIDs, fmt.Sprintf("evt_workers_bulk_%05d", i))
	}
	posted, stored := make(chan error, 1), make(chan error, 1)
	go func() { posted <- postAll(receiver, recvIDs, 8) }()
	ctx := context.Background()
	go func() { stored <- ingestBulk(ctx, st, bulkIDs, batch, "sink") }()

	testkit.Eventually(t, 30*time.Second, fmt.Sprintf("%d deliveries received", killAfter), func() error {
		n := sk.received()
		return testkit.Check(n >= killAfter, "only %d received", n)
	})
	var shares []string
	for _, w := range workers {
		shares = append(shares, doneCount(t, w))
	}
	killedAt := time.Since(start)
	workers[0].sigkill(t)
	t.Logf("worker killed with SIGKILL at %v, %d deliveries received; done by each worker so far: %v",
		killedAt.Round(time.Millisecond), sk.received(), shares)
	for _, done := range []chan error{posted, stored} {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("all %d events stored at %v", total, time.Since(start).Round(time.Millisecond))

	// The killed worker's claims come back when their lease runs out: the
	// destination's 2s timeout plus the engine's margin after the claim.
	lease := 2*time.Second + delivery.LeaseMargin
	var counts map[store.DeliveryStatus]int64
	testkit.Eventually(t, lease+40*time.Second, "every delivery done", func() error {
		s, err := st.Stats(ctx, time.Now())
		if err != nil {
			t.Fatalf("stats: %v", err)
		}
		counts = s.Destinations["sink"].Counts
		return testkit.Check(counts[store.StatusDone] == total, "deliveries by status %v, %d received", counts, sk.received())
	})
	drained := time.Since(start)

	for _, status := range store.Statuses {
		if status != store.StatusDone && counts[status] != 0 {
			t.Errorf("%d deliveries %s, want 0", counts[status], status)
		}
	}
	if n, err := st.CountEvents(ctx, "stripe"); err != nil || n != total {
		t.Errorf("CountEvents = %d, %v; want %d", n, err, total)
	}
	missing, duplicates, badSig := sk.tally(t, append(recvIDs, bulkIDs...))
	if len(missing) > 0 {
		t.Errorf("%d events never arrived, first %s", len(missing), missing[0])
	}
	if badSig > 0 {
		t.Errorf("%d deliveries with a bad signature", badSig)
	}
	lost, failed := unrecordedClaims(t, db)
	// The killed worker held claims whose outcome it never recorded: its
	// window (twice its concurrency, claimed and not yet pushed or in
	// flight), its senders waiting to queue an outcome, and the outcomes
	// its committer had queued or was writing (two committers, each with a
	// batch in hand and one queued). Only those, and attempts that failed
	// (a timeout on a loaded machine), can have been sent twice.
	maxHeld := 3*concurrency + 2*2*delivery.DefaultOutcomeBatch
	if lost > maxHeld || duplicates > lost+failed {
		t.Errorf("%d claims without an outcome, %d failed attempts, %d duplicate deliveries; want at most %d, and duplicates at most their sum",
			lost, failed, duplicates, maxHeld)
	}
	if lost == 0 {
		t.Log("the killed worker held no claim when it died: leases were not exercised this run")
	}
	t.Logf("%d deliveries done in %v; %d claims of the killed worker taken back after their lease, %d failed attempts, %d deliveries arrived twice",
		total, drained.Round(time.Millisecond), lost, failed, duplicates)

	for i, p := range append(workers[1:], receiver) {
		if code := p.stop(t); code != 0 {
			t.Errorf("process %d exit code %d after SIGTERM", i, code)
		}
	}
}

// doneCount reads from a relay's /metrics how many deliveries to sink it
// has recorded done, as the metric's text.
func doneCount(t *testing.T, p *relayProc) string {
	t.Helper()
	resp, err := (&http.Client{Timeout: 5 * time.Second}).Get("http://" + p.admin + "/metrics")
	if err != nil {
		t.Fatalf("get metrics: %v", err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("read metrics: %v", err)
	}
	for line := range strings.Lines(string(b)) {
		if strings.HasPrefix(line, `hookrelay_deliveries_total{destination="sink",outcome="done"} `) {
			return strings.TrimSpace(strings.Fields(line)[1])
		}
	}
	return "0"
}

// ingestBulk stores one event per provider id, in batches, the way the
// receiver's group commit does.
func ingestBulk(ctx context.Context, st store.Store, ids []string, batch int, destinations ...string) error {
	for len(ids) > 0 {
		n := min(batch, len(ids))
		items := make([]store.IngestItem, 0, n)
		for _, id := range ids[:n] {
			items = append(items, bulkItem(id, destinations...))
		}
		if _, err := st.Ingest(ctx, items); err != nil {
			return fmt.Errorf("ingest: %w", err)
		}
		ids = ids[n:]
	}
	return nil
}

// bulkItem is a Stripe event as the receiver would store it, with one
// delivery to each destination.
func bulkItem(providerID string, destinations ...string) store.IngestItem {
	now := time.Now().UTC()
	ev := store.Event{
		ID:              ulid.Make().String(),
		Source:          "stripe",
		ProviderEventID: providerID,
		IDOrigin:        store.IDFromBody,
		Type:            "invoice.paid",
		Body:            fmt.Appendf(nil, `{"id":%q,"type":"invoice.paid","created":%d}`, providerID, now.Unix()),
		ContentType:     "application/json",
		Headers:         map[string][]string{"Content-Type": {"application/json"}},
		SignatureSlot:   0,
		OccurredAt:      now.Truncate(time.Second),
		ReceivedAt:      now,
	}
	item := store.IngestItem{Event: ev}
	for _, d := range destinations {
		item.Deliveries = append(item.Deliveries, store.NewDelivery{Destination: d})
	}
	return item
}

// unrecordedClaims counts the claims whose outcome was never recorded —
// a delivery's attempts count its claims, and each recorded outcome adds
// an attempt row — and the attempts recorded as failed.
func unrecordedClaims(t *testing.T, database string) (lost, failed int) {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, database)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	// A delivery's attempts are its rows of attempts, plus the one that
	// ended it done, which its row keeps (last_attempted_at).
	err = conn.QueryRow(ctx, qualify(t, database, `SELECT
		(SELECT coalesce(sum(d.attempts - (SELECT count(*) FROM hookrelay.attempts a WHERE a.delivery_id = d.id)
			- CASE WHEN d.status = 'done' AND d.last_attempted_at IS NOT NULL THEN 1 ELSE 0 END), 0)::bigint
		FROM hookrelay.deliveries d),
		(SELECT count(*) FROM hookrelay.attempts WHERE status_code <> 200)`)).Scan(&lost, &failed)
	if err != nil {
		t.Fatal(err)
	}
	return lost, failed
}

// TestFanOutWithOneDestinationDown runs one SQLite relay with two
// destinations for every event: one down (nothing listens on its port)
// while the other receives everything; then the first comes back and
// drains its backlog.
func TestFanOutWithOneDestinationDown(t *testing.T) {
	t.Parallel()
	const events = 300
	up := newSink(t, "", sinkSecret, 0)
	downAddr := freeAddr(t)
	cfg := `tokens:
  - {name: ops, role: admin, secret: "${E2E_ADMIN_TOKEN}"}
` + stripeSource + "destinations:\n" +
		pushDestination("up", up.url, 4, "300ms", 1000) +
		pushDestination("down", "http://"+downAddr+"/hooks", 4, "300ms", 1000) +
		"log:\n  level: warn\n"
	p := startRole(t, "all", testdb.SQLiteURL(t), cfg, adminEnv)

	var ids []string
	for i := range events {
		ids = append(ids, fmt.Sprintf("evt_fanout_%04d", i))
	}
	if err := postAll(p, ids, 8); err != nil {
		t.Fatal(err)
	}

	testkit.Eventually(t, 30*time.Second, "every event at up", func() error {
		n := up.received()
		return testkit.Check(n >= events, "up received %d of %d", n, events)
	})
	// Every delivery to down has been tried and failed at least once, or
	// is being tried: one leased at ingest counts processing until its
	// outcome, which the outcome committer may hold back for a moment.
	var stats map[string]destStats
	testkit.Eventually(t, 30*time.Second, "up done and every delivery to down tried", func() error {
		stats = adminStats(t, p, e2eAdminToken)
		d := stats["down"]
		return testkit.Check(stats["up"]["done"] == events && d["pending"] == 0 && d["failed"]+d["processing"] >= events,
			"stats %v", stats)
	})
	if d := stats["down"]; d["done"] != 0 || d["dead"] != 0 || d["failed"]+d["processing"] != events {
		t.Errorf("down while nothing listens: %v; want %d failed or processing", d, events)
	}

	down := newSink(t, downAddr, sinkSecret, 0)
	testkit.Eventually(t, 30*time.Second, "every delivery to down done", func() error {
		stats = adminStats(t, p, e2eAdminToken)
		return testkit.Check(stats["down"]["done"] == events, "down received %d; stats %v", down.received(), stats)
	})

	for name, s := range map[string]*sink{"up": up, "down": down} {
		missing, duplicates, badSig := s.tally(t, ids)
		if len(missing) > 0 || duplicates > 0 || badSig > 0 {
			t.Errorf("%s: %d missing, %d duplicates, %d bad signatures", name, len(missing), duplicates, badSig)
		}
		if st := stats[name]; st["done"] != events || st["failed"]+st["pending"]+st["processing"]+st["dead"] != 0 {
			t.Errorf("%s: stats %v, want %d done", name, st, events)
		}
	}
	if code := p.stop(t); code != 0 {
		t.Fatalf("relay exit code %d after SIGTERM", code)
	}
}
