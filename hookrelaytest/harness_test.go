package hookrelaytest_test

import (
	"context"
	"testing"

	"github.com/hookrelay/hookrelay"
	"github.com/hookrelay/hookrelay/hookrelaytest"
	"github.com/hookrelay/hookrelay/internal/testkit/appdb"
	"github.com/hookrelay/hookrelay/internal/testkit/testdb"
)

// The tests use the package as an application does: on its own database,
// opened by its own pool or *sql.DB, with a table of its own, effects.

// app is the application's database in a test.
type app struct {
	appdb.DB
	url string // as hookrelay.Config's Database takes it
}

// eachDriver runs test on SQLite and on PostgreSQL, each on a fresh
// database.
func eachDriver(t *testing.T, test func(t *testing.T, a *app)) {
	for _, drv := range testdb.Drivers() {
		t.Run(drv.Name, func(t *testing.T) {
			t.Parallel()
			test(t, openApp(t, drv.URL(t)))
		})
	}
}

// openApp opens the database at url as the application does, and
// creates the table effects.
func openApp(t *testing.T, url string) *app {
	t.Helper()
	a := &app{DB: appdb.Open(t, url), url: url}
	a.Exec(t, `CREATE TABLE effects (event_id text NOT NULL, note text NOT NULL DEFAULT '')`)
	return a
}

// db is the application's database as hookrelaytest takes it.
func (a *app) db() hookrelaytest.DB {
	if a.Pool != nil {
		return hookrelaytest.Postgres(a.Pool)
	}
	return hookrelaytest.SQLite(a.SQL)
}

// effects returns the rows of effects, as "event_id note", in order.
func (a *app) effects(t *testing.T) []string {
	t.Helper()
	return a.Strings(t, `SELECT event_id || ' ' || note FROM effects ORDER BY event_id, note`)
}

// record is what a handler under test writes: ev's provider id and note,
// in the application's table, through tx.
func record(ctx context.Context, tx hookrelay.Tx, ev hookrelay.Event, note string) error {
	return appdb.ExecTx(ctx, tx, `INSERT INTO effects (event_id, note) VALUES ($1, $2)`, ev.ProviderEventID, note)
}
