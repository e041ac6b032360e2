package main

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"fmt"
	"net/url"
	"path/filepath"

	"github.com/jackc/pgx/v5"
	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// benchDB is a fresh database for one relay run, counted after the run to
// check that every acknowledged event was stored.
type benchDB interface {
	// URL is the relay's database setting.
	URL() string
	// CountEvents returns how many events are stored.
	CountEvents(ctx context.Context) (int64, error)
	// Drop removes the database.
	Drop(ctx context.Context) error
}

// newBenchDB creates a fresh database for driver: a new SQLite file in dir
// named after name, or a new PostgreSQL database on the server of pgURL.
func newBenchDB(ctx context.Context, driver, dir, name, pgURL string) (benchDB, error) {
	switch driver {
	case "sqlite":
		return &sqliteDB{path: filepath.Join(dir, name+".db")}, nil
	case "postgres":
		return createPostgresDB(ctx, pgURL)
	}
	return nil, fmt.Errorf("%w: unknown driver %q", errUsage, driver)
}

// sqliteDB is a SQLite file the relay creates on start.
type sqliteDB struct{ path string }

func (d *sqliteDB) URL() string { return "sqlite:" + d.path }

func (d *sqliteDB) CountEvents(ctx context.Context) (int64, error) {
	db, err := sql.Open("sqlite", "file:"+d.path)
	if err != nil {
		return 0, fmt.Errorf("open sqlite: %w", err)
	}
	defer db.Close()
	var n int64
	if err := db.QueryRowContext(ctx, "SELECT count(*) FROM events").Scan(&n); err != nil {
		return 0, fmt.Errorf("count events: %w", err)
	}
	return n, nil
}

// Drop leaves the file to the removal of the benchmark's directory.
func (d *sqliteDB) Drop(context.Context) error { return nil }

// postgresDB is a database the benchmark created and drops.
type postgresDB struct {
	admin string // URL of the server's maintenance database
	name  string
	url   string
}

func createPostgresDB(ctx context.Context, adminURL string) (*postgresDB, error) {
	u, err := url.Parse(adminURL)
	if err != nil {
		return nil, fmt.Errorf("%w: parse --postgres-url: %w", errUsage, err)
	}
	var b [6]byte
	_, _ = rand.Read(b[:])
	d := &postgresDB{admin: adminURL, name: "hookrelay_bench_" + hex.EncodeToString(b[:])}
	u.Path = "/" + d.name
	d.url = u.String()
	if err := d.exec(ctx, "CREATE DATABASE "+d.name); err != nil {
		return nil, fmt.Errorf("create database: %w", err)
	}
	return d, nil
}

func (d *postgresDB) URL() string { return d.url }

func (d *postgresDB) exec(ctx context.Context, stmt string) error {
	conn, err := pgx.Connect(ctx, d.admin)
	if err != nil {
		return fmt.Errorf("connect to postgres: %w", err)
	}
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, stmt)
	return err
}

func (d *postgresDB) CountEvents(ctx context.Context) (int64, error) {
	conn, err := pgx.Connect(ctx, d.url)
	if err != nil {
		return 0, fmt.Errorf("connect to postgres: %w", err)
	}
	defer conn.Close(ctx)
	var n int64
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM events").Scan(&n); err != nil {
		return 0, fmt.Errorf("count events: %w", err)
	}
	return n, nil
}

func (d *postgresDB) Drop(ctx context.Context) error {
	if err := d.exec(ctx, "DROP DATABASE IF EXISTS "+d.name+" WITH (FORCE)"); err != nil {
		return fmt.Errorf("drop database %s: %w", d.name, err)
	}
	return nil
}
