package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
)

// Ingest stores the batch in one immediate transaction on the writer
// connection; with synchronous=FULL its commit is durable when it returns.
func (s *Store) Ingest(ctx context.Context, items []store.IngestItem) ([]bool, error) {
	if err := s.enter(); err != nil {
		return nil, fmt.Errorf("ingest: %w", err)
	}
	defer s.mu.RUnlock()
	if len(items) == 0 {
		return []bool{}, nil
	}
	inserted, err := s.ingest(ctx, items)
	if err != nil {
		return nil, fmt.Errorf("ingest: %w", mapErr(ctx, err))
	}
	return inserted, nil
}

func (s *Store) ingest(ctx context.Context, items []store.IngestItem) ([]bool, error) {
	st, err := s.prepared(ctx)
	if err != nil {
		return nil, err
	}
	tx, err := s.writer.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	insEvent := tx.StmtContext(ctx, st.insertEvent)
	insDelivery := tx.StmtContext(ctx, st.insertDelivery)

	now := micros(time.Now())
	inserted := make([]bool, len(items))
	for i, it := range items {
		ok, err := insertItem(ctx, insEvent, insDelivery, it, now)
		if err != nil {
			return nil, fmt.Errorf("insert event %s: %w", it.Event.ID, err)
		}
		inserted[i] = ok
	}
	if err := tx.Commit(); err != nil {
		return nil, fmt.Errorf("commit: %w", err)
	}
	return inserted, nil
}

// insertItem inserts one event and, when it was not a duplicate, its
// deliveries, and tells whether it inserted.
func insertItem(ctx context.Context, insEvent, insDelivery *sql.Stmt, it store.IngestItem, now int64) (bool, error) {
	e := it.Event
	headers, err := encodeHeaders(e.Headers)
	if err != nil {
		return false, err
	}
	var id string
	err = insEvent.QueryRowContext(ctx,
		e.ID, e.Source, e.ProviderEventID, string(e.IDOrigin), e.Type, nonNil(e.Body), e.ContentType,
		headers, e.SignatureSlot, nullMicros(e.OccurredAt), micros(e.ReceivedAt),
	).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil // a duplicate: nothing written
	}
	if err != nil {
		return false, err
	}
	due, orderAt := micros(e.ReceivedAt), micros(e.ReceivedAt)
	if !e.OccurredAt.IsZero() {
		orderAt = micros(e.OccurredAt)
	}
	for _, d := range it.Deliveries {
		if _, err := insDelivery.ExecContext(ctx, e.ID, d.Destination, d.OrderingKey, due, orderAt, now, now); err != nil {
			return false, fmt.Errorf("insert delivery to %s: %w", d.Destination, err)
		}
	}
	return true, nil
}

// nonNil returns b, or an empty slice for nil, which would bind as NULL.
func nonNil(b []byte) []byte {
	if b == nil {
		return []byte{}
	}
	return b
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
