// Package receiver is hookrelay's public ingest endpoint, POST
// /webhooks/{source}: it verifies the provider's signature over the raw
// bytes, stores the event durably through a group committer, and only then
// answers 200. Every other answer tells the provider to keep the event and,
// where it makes sense, to try again.
package receiver

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/oklog/ulid/v2"
	"golang.org/x/time/rate"

	"github.com/hookrelay/hookrelay/internal/signature"
	"github.com/hookrelay/hookrelay/internal/store"
)

// Source is one configured ingest source.
type Source struct {
	Name    string
	Scheme  signature.Scheme
	MaxBody int64
	// Fingerprints are the fingerprints of the scheme's secrets, by
	// slot (config.Source.SlotFingerprints): what the rotation status
	// counts each verification under. None leaves it uncounted.
	Fingerprints []string
}

// fingerprint returns the fingerprint of src's secret in slot, or "".
func (src *Source) fingerprint(slot int) string {
	if slot < 0 || slot >= len(src.Fingerprints) {
		return ""
	}
	return src.Fingerprints[slot]
}

// Committer stores one event durably and reports what the store did with
// it; *groupcommit.Committer implements it. The store decides the
// replayed-signature rule in the event's transaction (see
// store.IngestItem.SignatureDigest), for every process that shares the
// database. The relay's committer also hands the event's deliveries to
// the delivery engine of its process, leased or woken for (internal/relay's
// leasingCommitter): the receiver wakes no one itself.
type Committer interface {
	Commit(ctx context.Context, item store.IngestItem) (store.IngestOutcome, error)
}

// Router decides which destinations an event fans out to: a *route.Table,
// or a *route.Router, whose destinations are fixed. An error leaves the
// event unstored, answered 503.
type Router interface {
	Lookup(source, eventType string, body []byte) ([]store.NewDelivery, error)
}

// Options configure a Receiver.
type Options struct {
	Sources    []Source
	Router     Router
	Committer  Committer
	Rejections *RejectionRecorder
	// Tally, when set, counts outcomes per source for the stats.
	Tally *Tally
	// Slots, when set, counts the events each secret slot verified.
	Slots *SlotCounter
	// Rejected, when set, counts the rejections for the fleet's
	// signature-failure rule.
	Rejected *RejectionCounter
	Metrics  *Metrics
	Logger   *slog.Logger
	// Limits, when set, are the concurrency cap, body budget and per-peer
	// bound this receiver shares with the others of its relay (those that
	// reloads replace); otherwise the receiver has Limits of its own, built
	// from MaxConcurrency, MaxInflightBytes and BudgetWait.
	Limits *Limits
	// MaxConcurrency caps requests verified and stored at once; beyond it
	// the answer is 503 with Retry-After. Default 512.
	MaxConcurrency int
	// MaxInflightBytes caps the body bytes held in memory at once. Default
	// 64 MiB.
	MaxInflightBytes int64
	// MinUploadRate, in bytes a second, is the slowest a body may arrive
	// on average once UploadGrace has passed; a slower one is cut off and
	// answered 408. 0 sets no floor.
	MinUploadRate int64
	// UploadGrace is how long a body may take before MinUploadRate
	// applies. Default DefaultUploadGrace.
	UploadGrace time.Duration
	// ReadTimeout is the public server's read timeout, which the minimum
	// upload rate's deadlines never extend; 0 when it has none.
	ReadTimeout time.Duration
	// BudgetWait is how long a request may wait for body memory before it
	// is answered 503. Default 5s.
	BudgetWait time.Duration
	// Now returns the current time; default time.Now.
	Now func() time.Time
}

// Receiver is the ingest http.Handler. Mount it on a pattern that binds
// {source}, e.g. "POST /webhooks/{source}", or name the source of each
// request with WithSource.
type Receiver struct {
	sources    map[string]*Source
	router     Router
	committer  Committer
	rejections *RejectionRecorder
	tally      *Tally
	slotUse    *SlotCounter
	rejected   *RejectionCounter
	metrics    *Metrics
	logger     *slog.Logger
	limits     *Limits
	now        func() time.Time

	minUploadRate int64
	uploadGrace   time.Duration
	readTimeout   time.Duration

	// refusalLogs and errorLogs bound the log lines of requests that are
	// refused before any source is known (404) or not stored (503): a
	// flood of them is counted in the metrics, not written line by line.
	refusalLogs *rate.Limiter
	errorLogs   *rate.Limiter
	// handshakeLogs bounds the log lines of answered handshakes: Microsoft
	// Graph's validation carries no secret, so anyone may send it at will.
	handshakeLogs *rate.Limiter
}

// logsPerSecond is how many refused or failed requests a second are logged
// one by one, with a burst of as many.
const logsPerSecond = 20

// New returns a Receiver.
func New(o Options) *Receiver {
	if o.Limits == nil {
		o.Limits = NewLimits(LimitOptions{MaxConcurrency: o.MaxConcurrency,
			MaxInflightBytes: o.MaxInflightBytes, BudgetWait: o.BudgetWait}, o.Logger)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.UploadGrace <= 0 {
		o.UploadGrace = DefaultUploadGrace
	}
	rc := &Receiver{
		sources:    make(map[string]*Source, len(o.Sources)),
		router:     o.Router,
		committer:  o.Committer,
		rejections: o.Rejections,
		tally:      o.Tally,
		slotUse:    o.Slots,
		rejected:   o.Rejected,
		metrics:    o.Metrics,
		logger:     o.Logger.With("component", "receiver"),
		limits:     o.Limits,
		now:        o.Now,

		minUploadRate: o.MinUploadRate,
		uploadGrace:   o.UploadGrace,
		readTimeout:   o.ReadTimeout,

		refusalLogs: rate.NewLimiter(logsPerSecond, logsPerSecond),
		errorLogs:   rate.NewLimiter(logsPerSecond, logsPerSecond),

		handshakeLogs: rate.NewLimiter(logsPerSecond, logsPerSecond),
	}
	for i := range o.Sources {
		rc.sources[o.Sources[i].Name] = &o.Sources[i]
	}
	return rc
}

// outcome is everything the answer, the log line and the metrics need to
// know about one request.
type outcome struct {
	err       error
	event     store.Event
	inserted  bool
	handshake *signature.Handshake
	verified  signature.Result
	bodySize  int64
}

// ServeHTTP handles one webhook delivery.
func (rc *Receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := rc.now()
	rc.metrics.inflight.Inc()
	defer rc.metrics.inflight.Dec()

	src, ok := rc.sources[sourceOf(r)]
	if !allowsMethod(r, src) {
		refuseMethod(w, src)
		return
	}
	if !ok {
		rc.respond(w, r, nil, outcome{err: errUnknownSource}, start)
		return
	}
	eventID := newEventID(start)
	r, span := traceIngest(r, src, eventID)
	defer span.End()
	rc.respond(w, r, src, rc.ingest(w, r, src, start, eventID), start)
}

// ingest runs the steps that must happen in order: read within limits,
// verify, identify, store, the event under eventID.
func (rc *Receiver) ingest(w http.ResponseWriter, r *http.Request, src *Source, start time.Time, eventID string) outcome {
	body, held, release, err := rc.readBody(w, r, src, start)
	defer rc.limits.budget.give(held)
	defer release()
	if err != nil {
		return outcome{err: err, bodySize: max(r.ContentLength, 0)}
	}
	req := signature.Request{Header: r.Header, Body: body, Now: start, Method: r.Method, RawQuery: r.URL.RawQuery}
	o := outcome{bodySize: int64(len(body))}

	verified := traceStep(r.Context(), spanVerify)
	o.verified, o.err = src.Scheme.Verify(req)
	verified(o.err)
	if o.err != nil {
		return o
	}
	id, err := src.Scheme.Identify(req)
	if err == nil {
		err = checkIdentity(&id)
	}
	if err != nil {
		o.err = err
		return o
	}
	if hs, ok := src.Scheme.Handshake(req); ok {
		o.handshake = &hs
		return o
	}

	o.event = store.Event{
		ID:              eventID,
		Source:          src.Name,
		ProviderEventID: id.ID,
		IDOrigin:        id.Origin,
		Type:            id.Type,
		Body:            body,
		ContentType:     r.Header.Get("Content-Type"),
		Headers:         storableHeaders(r.Header),
		RawQuery:        o.verified.SignedQuery,
		SignatureSlot:   o.verified.Slot,
		OccurredAt:      id.OccurredAt,
		ReceivedAt:      start.UTC(),
	}
	deliveries, err := rc.router.Lookup(src.Name, id.Type, body)
	if err != nil {
		o.err = fmt.Errorf("route event: %w: %w", store.ErrUnavailable, err)
		return o
	}
	item := store.IngestItem{Event: o.event, Deliveries: deliveries}
	if mac := o.verified.BodySignature; len(mac) > 0 {
		signed := body
		if o.verified.SignedContent != nil {
			signed = o.verified.SignedContent
		}
		item.SignatureDigest = signatureDigest(mac, signed)
	}
	committed := traceStep(r.Context(), spanCommit)
	stored, err := rc.committer.Commit(r.Context(), item)
	committed(err)
	switch {
	case err != nil:
		o.err = err
	case stored == store.IngestReplayedSignature:
		o.err = fmt.Errorf("store event: %w", errReplayedSignature)
	default:
		o.inserted = stored == store.IngestStored
	}
	return o
}

// newEventID returns a hookrelay event id: a ULID whose time is the receive
// time, so ids sort by arrival and a received_at window is an id range.
func newEventID(receivedAt time.Time) string {
	id, err := ulid.New(ulid.Timestamp(receivedAt), ulid.DefaultEntropy())
	if err != nil {
		// The monotonic entropy ran out within one millisecond.
		return ulid.Make().String()
	}
	return id.String()
}

// readBody reads r's body within the source's limit, the body budget, the
// minimum upload rate and its peer's bound on unread bodies, and takes a
// concurrency slot, which release gives back. The slot is taken only once
// the body has been read, or has shown that it flows by sending its first
// freeBody bytes (then before it waits for the budget, so that large
// bodies beyond the cap are refused at once rather than queued): a client
// that sends slowly holds no slot while it does. The peer's bound counts a
// body until then; from then on the memory it takes is the budget's.
func (rc *Receiver) readBody(w http.ResponseWriter, r *http.Request, src *Source, start time.Time) (body []byte, held int64, release func(), err error) {
	paced, done := rc.pace(w, r, start)
	leave := sync.OnceFunc(rc.limits.peers.enter(peerOf(r), paced, rc.now()))
	free := func() {}
	taken := false
	slot := func() error {
		leave()
		select {
		case rc.limits.slots <- struct{}{}:
			taken, free = true, sync.OnceFunc(func() { <-rc.limits.slots })
			return nil
		default:
			return errOverloaded
		}
	}
	body, held, err = rc.limits.budget.readBody(w, r, src.MaxBody, slot)
	leave()
	done(err)
	if err == nil && !taken {
		err = slot() // a body within freeBody: it has been read
	}
	return body, held, free, err
}
