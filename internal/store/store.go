// Package store defines hookrelay's storage seam: the records hookrelay keeps
// and the operations every storage driver implements. It holds no SQL; the
// drivers live in the sqlite and postgres subpackages, and the storetest
// subpackage is the conformance suite both of them pass.
package store

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Errors returned by drivers. Drivers map their native errors to these at the
// boundary so that callers never import a driver.
var (
	// ErrNotFound reports that the requested record does not exist.
	ErrNotFound = errors.New("store: not found")
	// ErrUnavailable reports that the database cannot be reached or cannot
	// accept writes right now (connection lost, server down, disk full, store
	// closed). The caller may retry later; nothing was committed.
	ErrUnavailable = errors.New("store: unavailable")
)

// IDOrigin tells how an event's provider id was obtained.
type IDOrigin string

// The ways a provider event id is obtained, from strongest to weakest.
const (
	IDFromHeader IDOrigin = "header" // a header the provider signs or sets per event
	IDFromBody   IDOrigin = "body"   // a field of the JSON body
	IDFromHash   IDOrigin = "hash"   // SHA-256 of the raw body: the last resort
)

// NoSlot is the SignatureSlot of an event whose source verifies nothing
// (scheme "none").
const NoSlot = -1

// Event is one webhook as it arrived and was verified.
type Event struct {
	// ID is hookrelay's own id: opaque, unique, and sortable by arrival.
	ID string
	// Source is the configured source name the event arrived on.
	Source string
	// ProviderEventID is the provider's id; unique together with Source.
	ProviderEventID string
	// IDOrigin tells how ProviderEventID was obtained.
	IDOrigin IDOrigin
	// Type is the provider's event type, or empty when it has none.
	Type string
	// Body is the raw request body, byte for byte; never re-encoded.
	Body []byte
	// ContentType is the request's Content-Type header.
	ContentType string
	// Headers are the request headers minus sensitive ones (Authorization,
	// Cookie, ...). Keys are canonical MIME header keys.
	Headers map[string][]string
	// RawQuery is the query of the URL the request arrived on, without
	// the '?', byte for byte, kept only when the source's scheme signs it
	// (Twilio) so that the event can be verified again; empty otherwise.
	// Like the body, it is sealed at rest and erased by a purge. Only
	// GetEvent and EventByProviderID read it back.
	RawQuery string
	// SignatureSlot is the index, in the source's secrets list, of the secret
	// that verified the event, or NoSlot.
	SignatureSlot int
	// OccurredAt is when the provider says the event happened; zero when the
	// provider asserts no time.
	OccurredAt time.Time
	// ReceivedAt is when hookrelay received the event.
	ReceivedAt time.Time
}

// DeliveryStatus is the state of one delivery of one event to one
// destination.
type DeliveryStatus string

// Delivery statuses. Pending, Processing and Failed are live; Done, Skipped,
// Dead and Purged are final.
const (
	StatusPending    DeliveryStatus = "pending"    // due, never tried since created or re-armed
	StatusProcessing DeliveryStatus = "processing" // held by a worker or pull consumer under a lease
	StatusFailed     DeliveryStatus = "failed"     // last attempt failed; waits for next_attempt_at
	StatusDone       DeliveryStatus = "done"
	StatusSkipped    DeliveryStatus = "skipped"
	StatusDead       DeliveryStatus = "dead"
	// StatusPurged ends a delivery whose event's payload was erased
	// (Erasure.PurgeEvents): there is nothing left to deliver.
	StatusPurged DeliveryStatus = "purged"
)

// Statuses lists every delivery status in display order.
var Statuses = []DeliveryStatus{StatusPending, StatusProcessing, StatusFailed, StatusDone, StatusSkipped, StatusDead, StatusPurged}

// NewDelivery asks for one delivery row to be created with an event.
type NewDelivery struct {
	// Destination is the configured destination name.
	Destination string
	// OrderingKey is the value of the destination's ordering_key path in
	// the event body, or empty when the destination does not order.
	OrderingKey string
	// Lease, when not nil, creates the delivery already leased to the
	// caller, as a claim would have left it: status processing, attempts
	// 1, Lease.Token and Lease.Until. nil creates it pending.
	Lease *Lease
}

// Lease is a lease a delivery is created with at ingest, so that the node
// that stores an event can deliver it without claiming it back. The
// delivery is then exactly a claimed one: completed with Token, reclaimed
// by any claimer once Until has passed.
//
// A store may defer writing such a delivery's row (Deferred): it keeps
// the lease with the event, in the same transaction, and writes the row
// whole with the delivery's outcome — one write per delivery in the common
// case instead of two. Until then its event's deliveries, GetDelivery,
// the events list and Stats show it from the lease, processing, as its
// row would be, a replay counts it in flight and a backfill passes it by;
// the events list's filters on a delivery's status or destination read
// rows and do not see it. Once Until has passed, the next claim of any destination
// writes the rows still missing as ingest would have (processing, the
// token, the lease that ran out), and they are reclaimed as any claimed
// row is. A completion or release of a deferred delivery says so, and
// names its event and destination (Claim.Deferred). Its token is checked
// once its row is written: until then no claim can hold it, and its id
// is its holder's alone.
type Lease struct {
	// Token guards completion, as a claim's LeaseToken does; it must not
	// be empty.
	Token string
	// Until is when the lease runs out.
	Until time.Time
	// DeliveryID is set by Ingest, once its transaction has committed, to
	// the id of the delivery it created under this lease; it stays 0 when
	// none was created (the event was a duplicate, or Ingest failed).
	DeliveryID int64
	// Deferred is set by Ingest, with DeliveryID, when the store has not
	// written the delivery's row yet (see above).
	Deferred bool
}

// IngestItem is one verified event and the deliveries it fans out to.
type IngestItem struct {
	Event      Event
	Deliveries []NewDelivery
	// SignatureDigest, when not nil, is a digest of the event's body and
	// of a signature that covers the body alone. Ingest keeps it with the
	// event and records it as held by the event's provider id, unique per
	// source, for ReplayWindow: the same digest under another provider id
	// is then IngestReplayedSignature.
	SignatureDigest []byte
}

// ReplayWindow is how long a signature digest stays held by the provider
// id that stored it: the longest retry or redelivery window among the
// providers that sign the body alone (GitHub lets a delivery be
// redelivered for 3 days). A provider's own retries and redeliveries keep
// their id, so the window never refuses them; once it has passed, another
// provider id may take the digest over.
const ReplayWindow = 72 * time.Hour

// IngestOutcome is what Ingest did with one item.
type IngestOutcome uint8

// The outcomes of an ingested item. Only IngestStored writes anything.
const (
	// IngestStored: the event was inserted with its deliveries.
	IngestStored IngestOutcome = iota + 1
	// IngestDuplicate: an event with the same (Source, ProviderEventID)
	// was already stored, by an earlier call or earlier in the same
	// batch — whatever the item's SignatureDigest.
	IngestDuplicate
	// IngestReplayedSignature: no event with the item's (Source,
	// ProviderEventID) is stored, and its SignatureDigest is held by
	// another provider id of the source, stored within ReplayWindow
	// before the item's ReceivedAt (or earlier in the same batch): the
	// same signed content posted again under a new id.
	IngestReplayedSignature
)

// String returns the outcome as logs and test failures show it.
func (o IngestOutcome) String() string {
	switch o {
	case IngestStored:
		return "stored"
	case IngestDuplicate:
		return "duplicate"
	case IngestReplayedSignature:
		return "replayed signature"
	}
	return fmt.Sprintf("IngestOutcome(%d)", uint8(o))
}

// Delivery is one delivery row.
type Delivery struct {
	ID             int64
	EventID        string
	Destination    string
	Status         DeliveryStatus
	Attempts       int
	ReplayCount    int
	OrderingKey    string
	NextAttemptAt  time.Time
	LeaseUntil     time.Time // zero unless processing
	LastError      string
	LastStatusCode int // 0 when no HTTP response was received
	CreatedAt      time.Time
	UpdatedAt      time.Time
	FinishedAt     time.Time // zero unless final
}

// Rejection is bounded metadata about a request that failed verification.
// It never holds the body.
type Rejection struct {
	ID         int64
	At         time.Time
	Source     string
	Reason     string
	RemoteAddr string
	BodySize   int64
	// Skew is the signed timestamp's distance from the receive time, when
	// the request carried a readable timestamp; HasSkew tells whether it did.
	Skew    time.Duration
	HasSkew bool
}

// Store is the storage seam. Implementations are safe for concurrent use.
type Store interface {
	// Migrate applies every pending embedded migration. It is idempotent.
	Migrate(ctx context.Context) error

	// Ping checks that the database answers. It returns ErrUnavailable
	// when it does not.
	Ping(ctx context.Context) error

	// Ingest stores a batch of verified events, each with its delivery
	// rows, in one transaction with one durable commit. It returns, for each
	// item in order, its IngestOutcome: stored, a duplicate of an event
	// already stored under the same (Source, ProviderEventID), or a
	// replayed signature, its SignatureDigest held by another provider id
	// (see IngestItem.SignatureDigest); nothing is written for an item not
	// stored. The digest and the event are written in the same
	// transaction, so that of concurrent batches — on any number of
	// processes sharing the database — that carry one digest under
	// different provider ids exactly one stores its event. Deliveries are
	// created with status pending, next_attempt_at = the event's
	// ReceivedAt, or leased when they carry a Lease (see NewDelivery). On
	// error nothing of the batch is committed; the error wraps
	// ErrUnavailable when the database cannot be reached or written.
	Ingest(ctx context.Context, items []IngestItem) ([]IngestOutcome, error)

	// GetEvent returns the event with the given hookrelay id, or
	// ErrNotFound.
	GetEvent(ctx context.Context, id string) (Event, error)

	// EventByProviderID returns the event a source stored under the
	// provider's id, or ErrNotFound.
	EventByProviderID(ctx context.Context, source, providerEventID string) (Event, error)

	// CountEvents returns how many events are stored for source, or for
	// every source when source is empty.
	CountEvents(ctx context.Context, source string) (int64, error)

	// EventDeliveries returns the deliveries of one event ordered by
	// destination name; an unknown event has none.
	EventDeliveries(ctx context.Context, eventID string) ([]Delivery, error)

	// GetDelivery returns the delivery with the given id, or ErrNotFound.
	GetDelivery(ctx context.Context, id int64) (Delivery, error)

	// RecordRejections appends rejection records in one transaction.
	RecordRejections(ctx context.Context, rs []Rejection) error

	// Rejections returns the newest rejections, at most limit, newest first.
	Rejections(ctx context.Context, limit int) ([]Rejection, error)

	// TrimRejections deletes all but the newest keep rejections and returns
	// how many it deleted.
	TrimRejections(ctx context.Context, keep int) (int64, error)

	// Close releases the database. In-flight calls finish first.
	Close() error
}
