package store

import (
	"context"
	"time"
)

// HandlerDestination is a handler destination — one whose deliveries a
// Go function of the embedding application handles — as the replicas
// that have its code register it, so that every replica, those without
// the code too, fans events out to it. Its code is not stored: a replica
// claims the deliveries of the handler destinations it has code for only.
type HandlerDestination struct {
	Name string
	// Sources, Types and OrderingKey route events to it, as a configured
	// destination's do.
	Sources     []string
	Types       []string
	OrderingKey string
	// RegisteredAt is when its current definition — its sources, types
	// and ordering key — was first registered; the store sets it.
	RegisteredAt time.Time
	// SeenAt is when a replica last registered it; the store sets it.
	SeenAt time.Time
}

// HandlerRegistry keeps the registered handler destinations.
type HandlerRegistry interface {
	// RegisterHandlers records each of ds as registered at now, in one
	// transaction, and returns them as stored, in the order of ds. A
	// destination registered before keeps its RegisteredAt while its
	// sources, types and ordering key are unchanged, and takes now when
	// they changed; SeenAt becomes now. It returns an error wrapping
	// ErrUnavailable when the database cannot be written.
	RegisterHandlers(ctx context.Context, ds []HandlerDestination, now time.Time) ([]HandlerDestination, error)

	// HandlerDestinations returns every registered handler destination,
	// by name. It returns an error wrapping ErrUnavailable when the
	// database cannot be read.
	HandlerDestinations(ctx context.Context) ([]HandlerDestination, error)
}
