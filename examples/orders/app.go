package main

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/hookrelay/hookrelay"
)

// app is the application's one handle on its database, which its own
// queries, its migrations and hookrelay share: a pgx pool on PostgreSQL,
// a database/sql handle on SQLite (modernc.org/sqlite, which hookrelay
// registers). Exactly one is set.
type app struct {
	pool   *pgxpool.Pool
	sqlite *sql.DB
}

// poolMaxConns is the size of the application's pool when its URL does
// not set pool_max_conns: room for its own queries, hookrelay's receiver
// and claims, and one connection for each handler running. hookrelay
// takes the pool as it is and changes none of its settings.
const poolMaxConns = 20

// hookrelaySchema is the PostgreSQL schema of hookrelay's tables: the one
// its migrations under migrations/hookrelay/postgres create, as `hookrelay
// migrate export` writes them by default.
const hookrelaySchema = "hookrelay"

// openApp opens the application's database: "sqlite:PATH" or
// "postgres://…". It creates no table: migrate does.
func openApp(ctx context.Context, database string) (*app, error) {
	if path, ok := strings.CutPrefix(database, "sqlite:"); ok {
		db, err := sql.Open("sqlite", path+"?_pragma=busy_timeout(5000)&_pragma=journal_mode(WAL)")
		if err != nil {
			return nil, fmt.Errorf("open database: %w", err)
		}
		if err := db.PingContext(ctx); err != nil {
			db.Close()
			return nil, fmt.Errorf("open database: %w", err)
		}
		return &app{sqlite: db}, nil
	}
	cfg, err := pgxpool.ParseConfig(database)
	if err != nil {
		return nil, fmt.Errorf("open database: %w", err)
	}
	if !strings.Contains(database, "pool_max_conns=") {
		cfg.MaxConns = poolMaxConns
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("open database: %w", err)
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("open database: %w", err)
	}
	return &app{pool: pool}, nil
}

// driver names the database as hookrelay.Migrations and the directories
// of migrations/ do: "postgres" or "sqlite".
func (a *app) driver() string {
	if a.pool != nil {
		return "postgres"
	}
	return "sqlite"
}

// relayConfig returns the part of hookrelay's Config that puts it on the
// application's pool or handle. Start then applies no migration — migrate
// has, with the application's own tool — and refuses a database that
// lacks one.
func (a *app) relayConfig() hookrelay.Config {
	if a.pool != nil {
		return hookrelay.Config{Postgres: a.pool, Schema: hookrelaySchema, ManualMigrations: true}
	}
	return hookrelay.Config{SQLite: a.sqlite, ManualMigrations: true}
}

// Close closes the application's pool or handle; hookrelay, which leaves
// them open, is shut down first.
func (a *app) Close() error {
	if a.pool != nil {
		a.pool.Close()
		return nil
	}
	return a.sqlite.Close()
}
