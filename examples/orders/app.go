package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	_ "github.com/jackc/pgx/v5/stdlib" // registers "pgx" for database/sql
)

// schema is the application's own tables, created if missing. hookrelay's
// migrations never touch them.
var schema = []string{
	`CREATE TABLE IF NOT EXISTS orders (
	id         text PRIMARY KEY,
	paid_cents bigint NOT NULL DEFAULT 0,
	status     text NOT NULL DEFAULT 'open'
)`,
	`CREATE TABLE IF NOT EXISTS payments (
	event_id     text NOT NULL,
	order_id     text NOT NULL,
	amount_cents bigint NOT NULL,
	received_at  text NOT NULL
)`,
}

// app is the application's own access to its database, outside handlers:
// database/sql, with the pgx driver on PostgreSQL (modernc.org/sqlite,
// which hookrelay registers, on SQLite).
type app struct {
	db *sql.DB
}

// openApp opens the application's connection to database, the same URL
// hookrelay is given, and creates its tables.
func openApp(ctx context.Context, database string) (*app, error) {
	driver, dsn := "pgx", database
	if path, ok := strings.CutPrefix(database, "sqlite:"); ok {
		driver, dsn = "sqlite", path+"?_pragma=busy_timeout(5000)&_pragma=journal_mode(WAL)"
	}
	db, err := sql.Open(driver, dsn)
	if err != nil {
		return nil, fmt.Errorf("open database: %w", err)
	}
	for _, stmt := range schema {
		if _, err := db.ExecContext(ctx, stmt); err != nil {
			db.Close()
			return nil, fmt.Errorf("create tables: %w", err)
		}
	}
	return &app{db: db}, nil
}

// Close closes the application's connection.
func (a *app) Close() error { return a.db.Close() }

// order is one row of GET /orders.
type order struct {
	ID        string `json:"id"`
	PaidCents int64  `json:"paid_cents"`
	Status    string `json:"status"`
	Payments  int    `json:"payments"`
}

// listOrders answers GET /orders: every order with its paid amount and how
// many payments made it.
func (a *app) listOrders(w http.ResponseWriter, r *http.Request) {
	rows, err := a.db.QueryContext(r.Context(), `SELECT o.id, o.paid_cents, o.status,
	(SELECT count(*) FROM payments p WHERE p.order_id = o.id)
FROM orders o ORDER BY o.id`)
	if err != nil {
		http.Error(w, "database unavailable", http.StatusServiceUnavailable)
		return
	}
	defer rows.Close()
	out := []order{}
	for rows.Next() {
		var o order
		if err := rows.Scan(&o.ID, &o.PaidCents, &o.Status, &o.Payments); err != nil {
			http.Error(w, "database unavailable", http.StatusServiceUnavailable)
			return
		}
		out = append(out, o)
	}
	if rows.Err() != nil {
		http.Error(w, "database unavailable", http.StatusServiceUnavailable)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(out)
}
