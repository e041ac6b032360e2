package postgres

import (
	"github.com/jackc/pgx/v5"

	"github.com/hookrelay/hookrelay/internal/store/sqlstore"
)

// tablesFor returns where hookrelay's tables are: in schema when it is
// set; otherwise in the first schema of the connection's search_path when
// the URL (or the application's pool) sets one, as earlier versions did;
// otherwise in sqlstore.DefaultSchema.
func tablesFor(schema string, conn *pgx.ConnConfig) (sqlstore.Tables, error) {
	if schema == "" {
		schema = sqlstore.FirstSchema(conn.RuntimeParams["search_path"])
	}
	return sqlstore.InSchema(schema)
}

// TablesOf returns where a store opened on url with schema (see
// Options.Schema) keeps hookrelay's tables, for a program that writes
// statements of its own with hookrelay.NAME (a seed, a test).
func TablesOf(url, schema string) (sqlstore.Tables, error) {
	cfg, err := pgx.ParseConfig(url)
	if err != nil {
		return sqlstore.Tables{}, err
	}
	return tablesFor(schema, cfg)
}
