package store

import (
	"context"
	"errors"
)

// ErrNoKeys reports a call that re-seals payloads on a store opened
// without keys.
var ErrNoKeys = errors.New("store: no payload keys configured")

// KeyCounts tells how many rows have their payload under each key id; the
// id "" counts the rows stored plain.
type KeyCounts struct {
	Events   map[string]int64
	Attempts map[string]int64
}

// PayloadKeys is the re-sealing of stored payloads (an event's body and
// headers, an attempt's response snippet) under the store's current key,
// which `hookrelay keys rotate` runs in small batches while the relay
// ingests and delivers. Every batch is one transaction that re-reads its
// rows under lock, so a row written or changed meanwhile is never
// overwritten with older bytes.
type PayloadKeys interface {
	// PayloadKeyCounts returns how many events and attempts are stored
	// under each key id, "" for plain.
	PayloadKeyCounts(ctx context.Context) (KeyCounts, error)

	// ResealEvents re-seals under the current key the payloads of at
	// most limit events whose id is above after and which are stored
	// plain or under another key, in id order, and returns how many it
	// re-sealed and the last id it re-sealed (after, when none). A run
	// ends when n is 0; starting again from "" resumes an interrupted
	// run, since rows done are under the current key. It fails with
	// ErrNoKeys on a store without keys, and with an error wrapping
	// payloadcrypt.ErrUnknownKey or payloadcrypt.ErrAuth when a row of
	// the batch does not open, in which case nothing of the batch is
	// written.
	ResealEvents(ctx context.Context, after string, limit int) (n int, last string, err error)

	// ResealAttempts is ResealEvents for attempts' response snippets, in
	// attempt id order.
	ResealAttempts(ctx context.Context, after int64, limit int) (n int, last int64, err error)
}
