package sqlstore

import (
	"context"
	"fmt"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
)

const (
	// upsertNode writes a node's report in place of its earlier one.
	upsertNode = `INSERT INTO hookrelay.nodes (id, version, config_fingerprint, started_at, seen_at) VALUES (?, ?, ?, ?, ?)
ON CONFLICT (id) DO UPDATE SET version = excluded.version, config_fingerprint = excluded.config_fingerprint,
	started_at = excluded.started_at, seen_at = excluded.seen_at`

	// selectNodes returns the nodes seen at or after ?.
	selectNodes = `SELECT id, version, config_fingerprint, started_at, seen_at FROM hookrelay.nodes
WHERE seen_at >= ? ORDER BY id`

	// deleteNodes forgets the nodes last seen before ?.
	deleteNodes = `DELETE FROM hookrelay.nodes WHERE seen_at < ?`
)

// RecordNode implements store.Fleet.
func (o *Ops) RecordNode(ctx context.Context, n store.Node) error {
	release, err := o.enter()
	if err != nil {
		return fmt.Errorf("record node %s: %w", n.ID, err)
	}
	defer release()
	d := o.b.Dialect
	if _, err := o.b.Write.Exec(ctx, upsertNode, n.ID, n.Version, n.ConfigFingerprint, d.Time(n.StartedAt), d.Time(n.SeenAt)); err != nil {
		return o.fail(ctx, "record node "+n.ID, err)
	}
	return nil
}

// Nodes implements store.Fleet.
func (o *Ops) Nodes(ctx context.Context, since, forget time.Time) ([]store.Node, error) {
	release, err := o.enter()
	if err != nil {
		return nil, fmt.Errorf("list nodes: %w", err)
	}
	defer release()
	if !forget.IsZero() {
		if _, err := o.b.Write.Exec(ctx, deleteNodes, o.b.Dialect.Time(forget)); err != nil {
			return nil, o.fail(ctx, "forget nodes", err)
		}
	}
	rows, err := o.b.Read.Query(ctx, selectNodes, o.b.Dialect.Time(since))
	nodes, err := collect(rows, err, func(row Rows) (store.Node, error) {
		var n store.Node
		err := row.Scan(&n.ID, &n.Version, &n.ConfigFingerprint, At(&n.StartedAt), At(&n.SeenAt))
		return n, err
	})
	if err != nil {
		return nil, o.fail(ctx, "list nodes", err)
	}
	return nodes, nil
}
