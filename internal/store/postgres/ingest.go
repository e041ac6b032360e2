package postgres

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/jackc/pgx/v5"

	"github.com/hookrelay/hookrelay/internal/store"
)

// Ingest stores the batch on the ingest pool in one round trip: a pipeline
// of one statement per item followed by a single Sync, which PostgreSQL
// runs as one implicit transaction, committed (durably: synchronous_commit
// is on in that pool) or rolled back as a whole. The last statement
// notifies, once per destination the batch names, the processes that
// Listen: PostgreSQL sends the notifications when the batch commits, and
// never when it rolls back.
//
// Items are sent in (source, provider id) order, so that concurrent batches
// that share provider ids take their unique-index locks in the same order
// and cannot deadlock; a duplicate within the batch keeps its place after
// the first, and so reports false.
func (s *Store) Ingest(ctx context.Context, items []store.IngestItem) ([]bool, error) {
	if len(items) == 0 {
		return []bool{}, nil
	}
	order := make([]int, len(items))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		ea, eb := &items[a].Event, &items[b].Event
		return cmp.Or(cmp.Compare(ea.Source, eb.Source), cmp.Compare(ea.ProviderEventID, eb.ProviderEventID))
	})

	batch := &pgx.Batch{}
	for _, i := range order {
		args, err := itemArgs(items[i])
		if err != nil {
			return nil, fmt.Errorf("ingest: event %s: %w", items[i].Event.ID, err)
		}
		batch.Queue(ingestItem, args...)
	}
	dests := destinations(items)
	if len(dests) > 0 {
		batch.Queue(notifyDestinations, dests)
	}
	br := s.ingest.SendBatch(ctx, batch)
	inserted := make([]bool, len(items))
	for _, i := range order {
		var n int64
		if err := br.QueryRow().Scan(&n); err != nil {
			br.Close()
			return nil, fmt.Errorf("ingest: event %s: %w", items[i].Event.ID, s.mapErr(ctx, err))
		}
		inserted[i] = n == 1
	}
	if len(dests) > 0 {
		if _, err := br.Exec(); err != nil {
			br.Close()
			return nil, fmt.Errorf("ingest: notify: %w", s.mapErr(ctx, err))
		}
	}
	// Close reads the outcome of the Sync, that is of the commit.
	if err := br.Close(); err != nil {
		return nil, fmt.Errorf("ingest: commit: %w", s.mapErr(ctx, err))
	}
	return inserted, nil
}

// destinations returns the distinct destinations of the items'
// deliveries, in order.
func destinations(items []store.IngestItem) []string {
	var dests []string
	for _, it := range items {
		for _, d := range it.Deliveries {
			if !slices.Contains(dests, d.Destination) {
				dests = append(dests, d.Destination)
			}
		}
	}
	return dests
}

// itemArgs returns the arguments of ingestItem for it.
func itemArgs(it store.IngestItem) ([]any, error) {
	e := it.Event
	headers, err := encodeHeaders(e.Headers)
	if err != nil {
		return nil, err
	}
	dests := make([]string, len(it.Deliveries))
	keys := make([]string, len(it.Deliveries))
	for i, d := range it.Deliveries {
		dests[i], keys[i] = d.Destination, d.OrderingKey
	}
	body := e.Body
	if body == nil {
		body = []byte{} // nil would be NULL
	}
	return []any{
		e.ID, e.Source, e.ProviderEventID, string(e.IDOrigin), e.Type, body, e.ContentType,
		headers, e.SignatureSlot, nullTime(e.OccurredAt), e.ReceivedAt,
		dests, keys,
	}, nil
}

// encodeHeaders stores headers as a JSON object; nil is {}.
func encodeHeaders(h map[string][]string) (string, error) {
	if h == nil {
		return "{}", nil
	}
	b, err := json.Marshal(h)
	if err != nil {
		return "", fmt.Errorf("encode headers: %w", err)
	}
	return string(b), nil
}

// decodeHeaders reads headers stored by encodeHeaders.
func decodeHeaders(s string) (map[string][]string, error) {
	h := map[string][]string{}
	if err := json.Unmarshal([]byte(s), &h); err != nil {
		return nil, fmt.Errorf("decode headers: %w", err)
	}
	return h, nil
}
