package reliability

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/hookrelay/hookrelay/internal/testkit"
	"github.com/hookrelay/hookrelay/internal/testkit/relayproc"
	"github.com/hookrelay/hookrelay/internal/testkit/testdb"
)

// The example application, examples/orders, built once for the tests that
// need it.
var (
	ordersOnce   sync.Once
	ordersBinary string
	ordersErr    error
)

// buildOrders builds examples/orders into a directory removed when the
// test binary's temporary directories are.
func buildOrders(t *testing.T) string {
	t.Helper()
	ordersOnce.Do(func() {
		dir, err := os.MkdirTemp("", "hookrelay-orders-")
		if err != nil {
			ordersErr = err
			return
		}
		// relayproc names what it builds after the relay; it is the example.
		ordersBinary, ordersErr = relayproc.Build(context.Background(), dir, "../../examples/orders")
	})
	if ordersErr != nil {
		t.Fatal(ordersErr)
	}
	return ordersBinary
}

// handlerDelay is how long the example's handler holds each call inside
// its transaction (-handler-delay): long enough that a kill finds one
// open, short enough that on SQLite, where handlers run one at a time, the
// backlog the load leaves drains in seconds.
const handlerDelay = 20 * time.Millisecond

// ordersProcess is one run of the example application: hookrelay
// embedded, with its handler destination "orders" and the config's push
// destination "sink".
type ordersProcess struct {
	*relayproc.Proc
	binary, database, configPath, public, admin string
	logs                                        *relayproc.Buffer
	// killed holds the output of every run killed so far, oldest first;
	// the restarts of a process share it.
	killed *[]string
}

// ordersDatabase returns a fresh database of driver for the example. On
// PostgreSQL it is a database of its own, not a schema: the example keeps
// hookrelay's tables in the schema its committed migrations name,
// "hookrelay", whatever the URL's search_path, and runs that share a
// database would share them. Its URL sets no search_path, so that the
// store the test opens on it finds them there too.
func ordersDatabase(t *testing.T, driver testdb.Driver) string {
	t.Helper()
	if driver.Name == "postgres" {
		return testdb.PostgresDatabaseURL(t)
	}
	return driver.URL(t)
}

// startOrders writes the config of the stripe source and the sink push
// destination at sinkURL, and starts the example application on database
// and fresh loopback ports; it is killed when the test ends if still
// running.
func startOrders(t *testing.T, database, sinkURL, backoff string) *ordersProcess {
	t.Helper()
	addrs := freeAddrs(t, 2)
	p := &ordersProcess{binary: buildOrders(t), database: database, public: addrs[0], admin: addrs[1], killed: new([]string)}
	p.configPath = filepath.Join(t.TempDir(), "hookrelay.yaml")
	cfg := relayproc.ConfigYAML(database, p.public, p.admin,
		relayproc.SinkConfig{URL: sinkURL, Backoff: backoff, SecretPrefix: "REL"}.YAML())
	if err := os.WriteFile(p.configPath, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	p.launch(t)
	return p
}

// restart starts the application again, on the same database and ports.
func (p *ordersProcess) restart(t *testing.T) *ordersProcess {
	t.Helper()
	q := *p
	q.launch(t)
	return &q
}

func (p *ordersProcess) launch(t *testing.T) {
	t.Helper()
	p.logs = &relayproc.Buffer{}
	proc, err := relayproc.Start(relayproc.Options{
		Binary: p.binary,
		Args: []string{"-config", p.configPath, "-database", p.database, "-listen", p.public, "-admin-listen", p.admin,
			"-handler-delay", handlerDelay.String()},
		Env: relayEnv, Output: p.logs, Admin: p.admin,
	})
	if err != nil {
		t.Fatal(err)
	}
	p.Proc = proc
	t.Cleanup(func() {
		if !p.Exited() {
			p.Kill()
		}
		if t.Failed() {
			t.Logf("orders (pid %d) logs:\n%s", p.Pid(), p.logs.String())
		}
	})
	if err := p.WaitReady(context.Background(), 30*time.Second); err != nil {
		t.Fatalf("%v\n%s", err, p.logs.String())
	}
}

// kill sends SIGKILL, waits until the process is gone, and keeps what it
// wrote. Every second kill first waits until a handler is running, its
// transaction open, so that kills land there, where exactly once is at
// stake, and not only at the random moments of the others, which may
// find none running.
func (p *ordersProcess) kill(t *testing.T) {
	t.Helper()
	if len(*p.killed)%2 == 1 {
		testkit.Eventually(t, 10*time.Second, "a handler to be running", func() error {
			return testkit.Check(len(readHandlerRun(p.logs.String()).cutShort()) > 0, "none is")
		})
	}
	if err := p.Signal(syscall.SIGKILL, 40*time.Second); err != nil {
		t.Fatal(err)
	}
	*p.killed = append(*p.killed, p.logs.String()) // all of it: the process is gone
}

func (p *ordersProcess) ingestURL() string { return "http://" + p.public + "/webhooks/stripe" }

// payment is one row of the application's payments table.
type payment struct {
	eventID, orderID string
	amount           int64
}

// appState reads the application's tables: every payment, and each
// order's paid amount.
func appState(t *testing.T, database string) ([]payment, map[string]int64) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	const (
		payments = `SELECT event_id, order_id, amount_cents FROM payments`
		orders   = `SELECT id, paid_cents FROM orders`
	)
	var ps []payment
	paid := map[string]int64{}
	if path, ok := strings.CutPrefix(database, "sqlite:"); ok {
		db, err := sql.Open("sqlite", path+"?_pragma=busy_timeout(5000)")
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		rows, err := db.QueryContext(ctx, payments)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var p payment
			if err := rows.Scan(&p.eventID, &p.orderID, &p.amount); err != nil {
				t.Fatal(err)
			}
			ps = append(ps, p)
		}
		rows.Close()
		rows, err = db.QueryContext(ctx, orders)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		for rows.Next() {
			var id string
			var n int64
			if err := rows.Scan(&id, &n); err != nil {
				t.Fatal(err)
			}
			paid[id] = n
		}
		return ps, paid
	}
	conn, err := pgx.Connect(ctx, database)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	prows, err := conn.Query(ctx, payments)
	if err != nil {
		t.Fatal(err)
	}
	ps, err = pgx.CollectRows(prows, func(r pgx.CollectableRow) (payment, error) {
		var p payment
		return p, r.Scan(&p.eventID, &p.orderID, &p.amount)
	})
	if err != nil {
		t.Fatal(err)
	}
	orows, err := conn.Query(ctx, orders)
	if err != nil {
		t.Fatal(err)
	}
	defer orows.Close()
	for orows.Next() {
		var id string
		var n int64
		if err := orows.Scan(&id, &n); err != nil {
			t.Fatal(err)
		}
		paid[id] = n
	}
	return ps, paid
}
