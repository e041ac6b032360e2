package main

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/jackc/pgx/v5"
)

// order is one row of GET /orders.
type order struct {
	ID        string `json:"id"`
	PaidCents int64  `json:"paid_cents"`
	Status    string `json:"status"`
	Payments  int    `json:"payments"`
}

// selectOrders reads every order with its paid amount and how many
// payments made it; both drivers take it as it is.
const selectOrders = `SELECT o.id, o.paid_cents, o.status,
	(SELECT count(*) FROM payments p WHERE p.order_id = o.id)
FROM orders o ORDER BY o.id`

// listOrders answers GET /orders: every order with its paid amount and how
// many payments made it.
func (a *app) listOrders(w http.ResponseWriter, r *http.Request) {
	out, err := a.orders(r.Context())
	if err != nil {
		http.Error(w, "database unavailable", http.StatusServiceUnavailable)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(out)
}

// orders returns every order, through the application's pool on
// PostgreSQL — the pool hookrelay runs on — or its handle on SQLite.
func (a *app) orders(ctx context.Context) ([]order, error) {
	if a.pool != nil {
		rows, err := a.pool.Query(ctx, selectOrders)
		if err != nil {
			return nil, err
		}
		return pgx.CollectRows(rows, func(row pgx.CollectableRow) (order, error) { return scanOrder(row) })
	}
	rows, err := a.sqlite.QueryContext(ctx, selectOrders)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []order{}
	for rows.Next() {
		o, err := scanOrder(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, o)
	}
	return out, rows.Err()
}

// scanOrder reads one row of selectOrders, from either driver.
func scanOrder(row interface{ Scan(dest ...any) error }) (order, error) {
	var o order
	err := row.Scan(&o.ID, &o.PaidCents, &o.Status, &o.Payments)
	return o, err
}
