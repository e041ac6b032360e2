package hookrelay_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay"
	"github.com/hookrelay/hookrelay/internal/testkit"
	"github.com/hookrelay/hookrelay/internal/testkit/testdb"
)

// TestOnTheApplicationsOwnDatabase runs hookrelay as an application that
// owns its database does: on its own pool (PostgreSQL) or handle (SQLite),
// hookrelay's tables in a schema of the application's choosing, applied by
// the application's migration tool from the exported SQL. Start refuses
// until they are applied; then webhooks are handled on the application's
// connections, and Shutdown leaves them open.
func TestOnTheApplicationsOwnDatabase(t *testing.T) {
	t.Parallel()
	eachDriver(t, func(t *testing.T, drv testdb.Driver) {
		app := openApp(t, drv.URL(t))
		app.exec(t, `CREATE TABLE effects (event_id text NOT NULL, note text NOT NULL DEFAULT '')`)
		cfg := hookrelay.Config{
			Sources:          []hookrelay.Source{{Name: "stripe", Verify: "stripe", Secrets: []string{stripeSecret}}},
			ManualMigrations: true,
		}
		driver := "sqlite"
		if app.Pool != nil {
			// A schema of the test's, which the test's end drops.
			u, err := url.Parse(testdb.PostgresURL(t))
			if err != nil {
				t.Fatal(err)
			}
			driver, cfg.Postgres, cfg.Schema = "postgres", app.Pool, u.Query().Get("search_path")
		} else {
			cfg.SQLite = app.SQL
		}
		newRelay := func() *hookrelay.Relay {
			r, err := hookrelay.New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			r.Handle(orders(3), func(ctx context.Context, tx hookrelay.Tx, ev hookrelay.Event) error {
				return insertEffect(ctx, tx, ev, "handled")
			})
			return r
		}
		ctx := context.Background()

		err := newRelay().Start(ctx)
		if err == nil || !strings.Contains(err.Error(), "migrations are not all applied") || !strings.Contains(err.Error(), "migrate export") {
			t.Fatalf("Start on a database without hookrelay's tables = %v, want a refusal that names the fix", err)
		}

		// The application's migration tool applies the exported SQL.
		ms, err := hookrelay.Migrations(driver, cfg.Schema)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range ms {
			app.exec(t, m.SQL)
		}
		r := newRelay()
		if err := r.Start(ctx); err != nil {
			t.Fatalf("Start after the application migrated: %v", err)
		}
		mux := http.NewServeMux()
		mux.Handle("/webhooks/", r.Receiver())
		srv := httptest.NewServer(mux)
		defer srv.Close()
		b := &bundle{relay: r, ingest: srv.URL, app: app}
		for _, id := range []string{"evt_byo_1", "evt_byo_2"} {
			b.mustPost(t, stripeEvent(id, "checkout.session.completed", "ord_"+id, time.Now()))
		}
		testkit.Eventually(t, 20*time.Second, "both events handled", func() error {
			got := app.strings(t, `SELECT event_id FROM effects ORDER BY event_id`)
			return testkit.Check(slices.Equal(got, []string{"evt_byo_1", "evt_byo_2"}), "effects %v", got)
		})
		if err := r.Shutdown(ctx); err != nil {
			t.Fatal(err)
		}
		// The application's connections are its own still.
		app.exec(t, `INSERT INTO effects (event_id) VALUES ('after_shutdown')`)
		if app.Pool != nil {
			tables := app.strings(t, `SELECT table_name::text FROM information_schema.tables WHERE table_schema = current_schema() ORDER BY 1`)
			if !slices.Equal(tables, []string{"effects"}) {
				t.Errorf("tables beside the application's = %v, want effects alone: hookrelay's are in %s", tables, cfg.Schema)
			}
			if n := app.strings(t, `SELECT count(*)::text FROM information_schema.tables WHERE table_schema = $1 AND table_name = 'deliveries'`, cfg.Schema); !slices.Equal(n, []string{"1"}) {
				t.Errorf("%s.deliveries: %v", cfg.Schema, n)
			}
		}
	})
}

// TestDatabaseNamedOnce refuses a Config that names its database twice.
func TestDatabaseNamedOnce(t *testing.T) {
	t.Parallel()
	app := openApp(t, testdb.SQLiteURL(t))
	_, err := hookrelay.New(hookrelay.Config{Database: "sqlite:x.db", SQLite: app.SQL})
	if err == nil || !strings.Contains(err.Error(), "set one of Database, Postgres and SQLite") {
		t.Errorf("New with Database and SQLite = %v", err)
	}
	if _, err := hookrelay.Migrations("mysql", ""); err == nil {
		t.Error("Migrations(mysql) succeeded")
	}
}
