package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/hookrelay/hookrelay/internal/store/storeopen"
	"github.com/hookrelay/hookrelay/internal/testkit/testdb"
)

// defaultPostgresURL is the server every command's --postgres-url names
// unless told otherwise: the local one, as the tests find it.
const defaultPostgresURL = "postgres://postgres@127.0.0.1:5432/postgres"

// benchDB is a fresh database for one relay run, counted after the run to
// check that every acknowledged event was stored.
type benchDB struct {
	url string
	// schema is the PostgreSQL schema the run owns; nil for SQLite.
	schema *testdb.Schema
	// file is the SQLite database file the run owns; "" for PostgreSQL.
	file string
}

// newBenchDB makes a fresh database for driver: a new SQLite file in dir
// named after name, or a PostgreSQL schema of its own on the server of
// pgURL, as the tests' databases are made.
func newBenchDB(ctx context.Context, driver, dir, name, pgURL string) (*benchDB, error) {
	switch driver {
	case "sqlite":
		file := filepath.Join(dir, name+".db")
		return &benchDB{url: "sqlite:" + file, file: file}, nil
	case "postgres":
		s, err := testdb.NewSchema(ctx, pgURL)
		if err != nil {
			return nil, fmt.Errorf("--postgres-url: %w", err)
		}
		return &benchDB{url: s.URL, schema: s}, nil
	}
	return nil, fmt.Errorf("%w: unknown driver %q", errUsage, driver)
}

// dropReporting drops the database, even once ctx is done, and writes to w
// why it could not.
func (d *benchDB) dropReporting(ctx context.Context, w io.Writer) {
	if err := d.Drop(context.WithoutCancel(ctx)); err != nil {
		fmt.Fprintln(w, err)
	}
}

// URL is the relay's database setting.
func (d *benchDB) URL() string { return d.url }

// CountEvents returns how many events are stored, read through the store.
func (d *benchDB) CountEvents(ctx context.Context) (int64, error) {
	st, err := storeopen.Open(ctx, d.url, slog.New(slog.DiscardHandler))
	if err != nil {
		return 0, err
	}
	defer st.Close()
	return st.CountEvents(ctx, "")
}

// Drop removes the PostgreSQL schema, or the SQLite file with its WAL
// and shared memory.
func (d *benchDB) Drop(ctx context.Context) error {
	if d.schema != nil {
		return d.schema.Drop(ctx)
	}
	// A later run of the same name (sustained --runs) starts afresh.
	for _, f := range []string{d.file, d.file + "-wal", d.file + "-shm"} {
		if err := os.Remove(f); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("remove %s: %w", f, err)
		}
	}
	return nil
}
