package e2e

import (
	"testing"

	"github.com/hookrelay/hookrelay/internal/store/storeopen"
)

// qualify returns query, written with hookrelay.NAME for hookrelay's
// tables, naming them where the store at database (a config's database
// URL) keeps them: hookrelay_NAME on SQLite, the URL's schema on
// PostgreSQL.
func qualify(t testing.TB, database, query string) string {
	t.Helper()
	tables, err := storeopen.Tables(database)
	if err != nil {
		t.Fatalf("tables of %s: %v", database, err)
	}
	return tables.Rewrite(query)
}
