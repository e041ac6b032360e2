package hookrelay

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/hookrelay/hookrelay/internal/adminapi"
	"github.com/hookrelay/hookrelay/internal/adminwire"
)

// The operations of the admin API, as methods: the same service serves
// both, so that each method does what its route does — its checks, its
// audit row and audit log line, the jobs it starts — without HTTP and
// without a token. They work between Start and Shutdown.

// Errors of the operations methods, besides those of the database.
var (
	// ErrNotRunning is returned before Start and after Shutdown.
	ErrNotRunning = errors.New("hookrelay: not running: operations work between Start and Shutdown")
	// ErrNotFound is wrapped by the error of a request that names an
	// event, a delivery, a destination, a source or a job that does not
	// exist.
	ErrNotFound = errors.New("hookrelay: not found")
	// ErrInvalid is wrapped by the error of a request that cannot be
	// carried out as it is: an empty replay filter, a bad glob, a window
	// whose Since is not before its Until, ...
	ErrInvalid = errors.New("hookrelay: invalid request")
	// ErrConflict is wrapped by the error of a request that the state of
	// what it names refuses: a delivery that is already final, an event
	// whose payload was purged.
	ErrConflict = errors.New("hookrelay: conflict")
)

// DefaultActor is who the audit log says asked for an operation whose
// context WithActor did not name anyone.
const DefaultActor = "application"

type actorKey struct{}

// WithActor returns ctx naming who asks for the operations called with
// it, as a token's name does in the admin API: the audit log records it
// with every replay, backfill, pause, resume and skip.
func WithActor(ctx context.Context, name string) context.Context {
	return context.WithValue(ctx, actorKey{}, name)
}

// actorOf returns the actor ctx names, or DefaultActor.
func actorOf(ctx context.Context) string {
	if name, _ := ctx.Value(actorKey{}).(string); name != "" {
		return name
	}
	return DefaultActor
}

// ops returns the admin API's service while the Relay runs.
func (r *Relay) ops() (*adminapi.Service, error) {
	r.mu.Lock()
	inner, state := r.inner, r.state
	r.mu.Unlock()
	if state != stateStarted {
		return nil, ErrNotRunning
	}
	return inner.Operations(), nil
}

// opError is an error of the service that the caller may read, as the
// admin API answers it: its text, and the sentinel of its kind.
type opError struct {
	msg  string
	kind error
	err  error
}

func (e *opError) Error() string   { return e.msg }
func (e *opError) Unwrap() []error { return []error{e.kind, e.err} }

// failed returns the error of operation op: a mistake of the request with
// the text the admin API answers and the sentinel of its kind, or err
// itself, wrapped.
func failed(op string, err error) error {
	status, msg := adminapi.StatusOf(err)
	var kind error
	switch status {
	case http.StatusNotFound:
		kind = ErrNotFound
	case http.StatusBadRequest:
		kind = ErrInvalid
	case http.StatusConflict, http.StatusGone:
		kind = ErrConflict
	default:
		return fmt.Errorf("hookrelay: %s: %w", op, err)
	}
	return &opError{msg: "hookrelay: " + op + ": " + msg, kind: kind, err: err}
}

// read runs a read of the service.
func read[T any](r *Relay, op string, fn func(*adminapi.Service) (T, error)) (T, error) {
	svc, err := r.ops()
	if err != nil {
		var zero T
		return zero, err
	}
	out, err := fn(svc)
	if err != nil {
		return out, failed(op, err)
	}
	return out, nil
}

// act runs a change of the service for ctx's actor, with its audit log
// line: op and attrs say what it does.
func act[T any](ctx context.Context, r *Relay, op string, fn func(ctx context.Context, svc *adminapi.Service, actor string) (T, error), attrs ...any) (T, error) {
	svc, err := r.ops()
	if err != nil {
		var zero T
		return zero, err
	}
	actor := actorOf(ctx)
	var out T
	err = svc.AuditCall(ctx, actor, op, func(ctx context.Context) error {
		var err error
		out, err = fn(ctx, svc, actor)
		return err
	}, attrs...)
	if err != nil {
		return out, failed(op, err)
	}
	return out, nil
}

// ListEvents returns one page of the events q selects, newest first, with
// the state of each of their deliveries, as GET /api/v1/events does.
func (r *Relay) ListEvents(ctx context.Context, q EventQuery) (EventPage, error) {
	l, err := read(r, "list events", func(svc *adminapi.Service) (adminwire.EventList, error) {
		return svc.SearchEvents(ctx, wireFilter(q.EventFilter, nil), adminwire.Search{Q: q.IDPrefix}, q.Cursor, pageLimit(q.Limit))
	})
	return eventPageOf(l), err
}

// pageLimit returns a page's limit: the admin API's default of 50 for 0.
func pageLimit(limit int) int {
	if limit <= 0 {
		return 50
	}
	return limit
}

// Event returns the event with hookrelay's id id, with its deliveries and
// their attempts, as GET /api/v1/events/{id} does.
func (r *Relay) Event(ctx context.Context, id string) (EventDetail, error) {
	e, err := read(r, "show event", func(svc *adminapi.Service) (adminwire.EventDetail, error) { return svc.Event(ctx, id) })
	return eventDetailOf(e), err
}

// ListDeliveries returns the deliveries of one page of the events q
// selects, newest first: of those events, the deliveries to q's
// Destination in q's Status (every one of them when unset). Dead letters
// are those in StatusDead; a page may hold fewer deliveries than q.Limit,
// or none, and still have a NextCursor.
func (r *Relay) ListDeliveries(ctx context.Context, q EventQuery) (DeliveryPage, error) {
	page, err := r.ListEvents(ctx, q)
	if err != nil {
		return DeliveryPage{}, err
	}
	return deliveryPageOf(page, q.EventFilter), nil
}

// Delivery returns the delivery with id, with its attempts.
func (r *Relay) Delivery(ctx context.Context, id int64) (Delivery, error) {
	d, err := read(r, "show delivery", func(svc *adminapi.Service) (adminwire.Delivery, error) { return svc.Delivery(ctx, id) })
	return deliveryOf(d), err
}

// Replay re-arms the deliveries req selects — attempts reset, due now —
// so that each handler or destination gets its event again, as POST
// /api/v1/replay does; a dry run counts them only. A delivery being
// processing is left alone and counted in InFlight. A replay is a
// deliberate new delivery: a handler runs again, and its effects apply
// again. For a replay of many deliveries, StartReplay runs it as a job.
func (r *Relay) Replay(ctx context.Context, req ReplayRequest) (ReplayResult, error) {
	res, err := act(ctx, r, "replay", func(ctx context.Context, svc *adminapi.Service, actor string) (adminwire.ReplayResult, error) {
		return svc.Replay(ctx, actor, adminwire.ReplayRequest{Filter: wireFilter(req.EventFilter, req.EventIDs), DryRun: req.DryRun})
	})
	return replayResultOf(res), err
}

// RetryDead replays the dead letters req selects (req.Status is dead,
// whether set or not): each dead delivery of the events req names or
// filters, of req's Destination when set, is re-armed and tried again
// from its first attempt. One dead letter, as OnDead tells of it, is
// retried with its EventID and Destination.
func (r *Relay) RetryDead(ctx context.Context, req ReplayRequest) (ReplayResult, error) {
	if req.Status != "" && req.Status != StatusDead {
		return ReplayResult{}, fmt.Errorf("hookrelay: retry dead letters: status %q: %w (want dead, or none)", req.Status, ErrInvalid)
	}
	req.Status = StatusDead
	return r.Replay(ctx, req)
}

// StartReplay checks req as Replay does and runs the replay as a job in
// the background, batch by batch, as POST /api/v1/jobs/replay does: the
// job is returned at once; Job tells how far it is, WaitJob waits for its
// end, CancelJob stops it between two batches. A dry run is Replay's.
func (r *Relay) StartReplay(ctx context.Context, req ReplayRequest) (Job, error) {
	j, err := act(ctx, r, "start replay", func(ctx context.Context, svc *adminapi.Service, actor string) (adminwire.Job, error) {
		return svc.StartReplay(ctx, actor, adminwire.JobReplayRequest{
			ReplayRequest: adminwire.ReplayRequest{Filter: wireFilter(req.EventFilter, req.EventIDs), DryRun: req.DryRun},
		})
	})
	return jobOf(j), err
}

// Backfill gives a destination the deliveries it lacks for the events of
// a window, as POST /api/v1/backfill does; a dry run counts them only. A
// second run finds nothing left to create.
func (r *Relay) Backfill(ctx context.Context, req BackfillRequest) (BackfillResult, error) {
	res, err := act(ctx, r, "backfill", func(ctx context.Context, svc *adminapi.Service, actor string) (adminwire.BackfillResult, error) {
		return svc.Backfill(ctx, actor, wireBackfill(req))
	})
	return backfillResultOf(res), err
}

// StartBackfill checks req as Backfill does and runs the backfill as a
// job, as StartReplay runs a replay.
func (r *Relay) StartBackfill(ctx context.Context, req BackfillRequest) (Job, error) {
	j, err := act(ctx, r, "start backfill", func(ctx context.Context, svc *adminapi.Service, actor string) (adminwire.Job, error) {
		return svc.StartBackfill(ctx, actor, wireBackfill(req))
	})
	return jobOf(j), err
}

func wireBackfill(req BackfillRequest) adminwire.BackfillRequest {
	return adminwire.BackfillRequest{Destination: req.Destination, Since: wireTime(req.Since), Until: wireTime(req.Until), DryRun: req.DryRun}
}

// Job returns the job with id as it is now, whichever relay process on
// the database runs it.
func (r *Relay) Job(ctx context.Context, id string) (Job, error) {
	j, err := read(r, "show job", func(svc *adminapi.Service) (adminwire.Job, error) { return svc.Job(ctx, id) })
	return jobOf(j), err
}

// WaitJob waits until the job with id has ended and returns it as it
// ended; when ctx ends first, it returns the job as it is then, with
// ctx's error.
func (r *Relay) WaitJob(ctx context.Context, id string) (Job, error) {
	j, err := read(r, "wait for job", func(svc *adminapi.Service) (adminwire.Job, error) { return svc.WaitJob(ctx, id) })
	return jobOf(j), err
}

// CancelJob asks the job with id to stop between two batches and returns
// it; it ends cancelled, keeping what it did. Cancelling a job that ended
// changes nothing.
func (r *Relay) CancelJob(ctx context.Context, id string) (Job, error) {
	j, err := act(ctx, r, "cancel job", func(ctx context.Context, svc *adminapi.Service, actor string) (adminwire.Job, error) {
		return svc.CancelJob(ctx, actor, id)
	})
	return jobOf(j), err
}

// SkipDelivery ends the live delivery with id — pending, failed or
// processing — as skipped: it is not tried again, and a handler or
// consumer still holding it has its outcome refused. A final delivery
// (done, skipped, dead or purged) cannot be skipped: ErrConflict.
func (r *Relay) SkipDelivery(ctx context.Context, id int64) (Delivery, error) {
	d, err := act(ctx, r, "skip delivery", func(ctx context.Context, svc *adminapi.Service, actor string) (adminwire.Delivery, error) {
		d, err := svc.SkipDelivery(ctx, actor, id)
		return adminwire.DeliveryOf(d, nil), err
	}, "delivery_id", id)
	return deliveryOf(d), err
}

// Pause pauses a destination: its deliveries wait, none is dropped, and
// those being handled finish. It holds across restarts and for every
// replica, until Resume.
func (r *Relay) Pause(ctx context.Context, destination string) error {
	return r.setPaused(ctx, destination, true)
}

// Resume resumes a paused destination: its deliveries go again at once.
func (r *Relay) Resume(ctx context.Context, destination string) error {
	return r.setPaused(ctx, destination, false)
}

func (r *Relay) setPaused(ctx context.Context, destination string, paused bool) error {
	op := "resume"
	if paused {
		op = "pause"
	}
	_, err := act(ctx, r, op, func(ctx context.Context, svc *adminapi.Service, actor string) (struct{}, error) {
		return struct{}{}, svc.SetPaused(ctx, actor, destination, paused)
	}, "destination", destination)
	return err
}

// Stats counts every destination's deliveries by status and every
// source's webhooks, as GET /api/v1/stats does.
func (r *Relay) Stats(ctx context.Context) (Stats, error) {
	s, err := read(r, "stats", func(svc *adminapi.Service) (adminwire.Stats, error) { return svc.Stats(ctx) })
	return statsOf(s), err
}
