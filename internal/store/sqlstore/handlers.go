package sqlstore

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
)

const (
	// registerHandler records one handler destination's definition, seen
	// at ?5: a new definition — or a changed one — registered at ?5, an
	// unchanged one keeping when it was first registered. (The SET
	// expressions read the row as it was before the update.)
	registerHandler = `INSERT INTO hookrelay.handler_destinations (name, sources, types, ordering_key, registered_at, seen_at)
VALUES (?, ?, ?, ?, ?, ?)
ON CONFLICT (name) DO UPDATE SET
	registered_at = CASE
		WHEN hookrelay.handler_destinations.sources = excluded.sources AND hookrelay.handler_destinations.types = excluded.types
			AND hookrelay.handler_destinations.ordering_key = excluded.ordering_key
		THEN hookrelay.handler_destinations.registered_at ELSE excluded.registered_at END,
	sources = excluded.sources, types = excluded.types, ordering_key = excluded.ordering_key,
	seen_at = excluded.seen_at`

	listHandlers = `SELECT name, sources, types, ordering_key, registered_at, seen_at
FROM hookrelay.handler_destinations ORDER BY name`
)

// RegisterHandlers records ds as registered at now and returns them as
// stored, as store.HandlerRegistry says.
func (o *Ops) RegisterHandlers(ctx context.Context, ds []store.HandlerDestination, now time.Time) ([]store.HandlerDestination, error) {
	const what = "register handler destinations"
	release, err := o.enter()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	defer release()
	at := o.b.Dialect.Time(now)
	var stored []store.HandlerDestination
	err = o.b.InTx(ctx, func(tx Conn) error {
		for _, d := range ds {
			sources, types := jsonList(d.Sources), jsonList(d.Types)
			if _, err := tx.Exec(ctx, registerHandler, d.Name, sources, types, d.OrderingKey, at, at); err != nil {
				return err
			}
		}
		rows, err := tx.Query(ctx, listHandlers)
		all, err := collect(rows, err, scanHandler)
		if err != nil {
			return err
		}
		byName := make(map[string]store.HandlerDestination, len(all))
		for _, h := range all {
			byName[h.Name] = h
		}
		stored = make([]store.HandlerDestination, len(ds))
		for i, d := range ds {
			stored[i] = byName[d.Name]
		}
		return nil
	})
	if err != nil {
		return nil, o.fail(ctx, what, err)
	}
	return stored, nil
}

// HandlerDestinations returns every registered handler destination, by
// name, read through Backend.Routing.
func (o *Ops) HandlerDestinations(ctx context.Context) ([]store.HandlerDestination, error) {
	const what = "handler destinations"
	release, err := o.enter()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	defer release()
	c := o.b.Routing
	if c == nil {
		c = o.b.Read
	}
	rows, err := c.Query(ctx, listHandlers)
	hs, err := collect(rows, err, scanHandler)
	if err != nil {
		return nil, o.fail(ctx, what, err)
	}
	return hs, nil
}

// scanHandler reads one row of listHandlers.
func scanHandler(row Rows) (store.HandlerDestination, error) {
	var (
		h              store.HandlerDestination
		sources, types string
	)
	if err := row.Scan(&h.Name, &sources, &types, &h.OrderingKey, At(&h.RegisteredAt), At(&h.SeenAt)); err != nil {
		return h, err
	}
	if err := json.Unmarshal([]byte(sources), &h.Sources); err != nil {
		return h, fmt.Errorf("handler destination %s: sources: %w", h.Name, err)
	}
	if err := json.Unmarshal([]byte(types), &h.Types); err != nil {
		return h, fmt.Errorf("handler destination %s: types: %w", h.Name, err)
	}
	return h, nil
}

// jsonList encodes a list of strings as a JSON array, [] when empty.
func jsonList(list []string) string {
	if list == nil {
		list = []string{}
	}
	b, _ := json.Marshal(list) // cannot fail for strings
	return string(b)
}
