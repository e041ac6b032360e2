package e2e

import (
	"context"
	"net/http"
	"testing"

	"github.com/hookrelay/hookrelay/internal/testkit/testdb"
)

// TestPartitionsEnable converts the event log of a PostgreSQL relay that
// has stored events with `hookrelay partitions enable`: serve refuses the
// config that asks for partitions until then (converting is never a
// side effect of a start), and the one that does not once it is done; the
// relay then serves on the partitioned log, where a provider id stored
// before is still a duplicate.
func TestPartitionsEnable(t *testing.T) {
	t.Parallel()
	db := testdb.PostgresURL(t)
	const daily = "retention: {partitions: daily}\n"
	p := startRelay(t, db, stripeSource, stripeEnv)
	for _, id := range []string{"evt_before_1", "evt_before_2"} {
		if code, err := postStripe(http.DefaultClient, "http://"+p.public+"/webhooks/stripe", id); err != nil || code != http.StatusOK {
			t.Fatalf("post %s: %d, %v", id, code, err)
		}
	}
	if code := p.stop(t); code != 0 {
		t.Fatalf("relay exit code %d", code)
	}

	partitioned := writeConfig(t, db, "127.0.0.1:0", "127.0.0.1:0", stripeSource+daily)
	r := wantRun(t, stripeEnv, 1, "serve", "--config", partitioned)
	contains(t, "serve before the conversion", r.stderr, "retention.partitions is daily", "hookrelay partitions enable")
	r = wantRun(t, stripeEnv, 0, "partitions", "enable", "--config", partitioned)
	contains(t, "partitions enable", r.stdout, "copy the dedupe keys", "partition the tables", "event log partitioned daily")
	r = wantRun(t, stripeEnv, 0, "partitions", "list", "--config", partitioned)
	contains(t, "partitions list", r.stdout, "PARTITION", "before_", "the start", "default", "any other time")
	plain := writeConfig(t, db, "127.0.0.1:0", "127.0.0.1:0", stripeSource)
	r = wantRun(t, stripeEnv, 1, "serve", "--config", plain)
	contains(t, "serve without the key", r.stderr, "set retention.partitions")

	p = startRelay(t, db, stripeSource+daily, stripeEnv)
	for _, id := range []string{"evt_before_1", "evt_after"} {
		if code, err := postStripe(http.DefaultClient, "http://"+p.public+"/webhooks/stripe", id); err != nil || code != http.StatusOK {
			t.Fatalf("post %s: %d, %v", id, code, err)
		}
	}
	if code := p.stop(t); code != 0 {
		t.Fatalf("relay exit code %d", code)
	}
	st := openStore(t, db)
	if n, err := st.CountEvents(context.Background(), "stripe"); err != nil || n != 3 {
		t.Errorf("events stored = %d, %v; want 3: the repost of evt_before_1 is a duplicate", n, err)
	}
	if _, err := st.EventByProviderID(context.Background(), "stripe", "evt_after"); err != nil {
		t.Errorf("evt_after: %v", err)
	}

	sqlite := writeConfig(t, testdb.SQLiteURL(t), "127.0.0.1:0", "127.0.0.1:0", daily)
	r = wantRun(t, nil, 1, "partitions", "enable", "--config", sqlite)
	contains(t, "partitions enable on SQLite", r.stderr, "retention.partitions: partitions are PostgreSQL's")
}
