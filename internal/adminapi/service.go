package adminapi

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/hookrelay/hookrelay/internal/config"
	"github.com/hookrelay/hookrelay/internal/delivery"
	"github.com/hookrelay/hookrelay/internal/store"
)

// Service is what the admin API does, without HTTP: listing and reading
// events, re-checking signatures, replay, backfill and statistics. The
// API's handlers and the web console both call it, so that an operator's
// action takes one code path whichever way it was asked for. A Service is
// safe for concurrent use.
type Service struct {
	store  store.DB
	cfg    *config.Config
	logger *slog.Logger
	now    func() time.Time
	wakeFn func(string)
	tokens tokenSet
	puller *delivery.Puller // the relay's, or one of the service's own
	// reloadFn serves POST /api/v1/reload; nil when the relay cannot.
	reloadFn ReloadFunc
	jobs     *Jobs
}

// NewService returns the service over o's store and config.
func NewService(o Options) *Service {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Config == nil {
		o.Config = config.Default()
	}
	s := &Service{
		store:  o.Store,
		cfg:    o.Config,
		logger: o.Logger.With("component", "adminapi"),
		now:    func() time.Time { return o.Now().UTC() },
		wakeFn: o.Wake,
		tokens: newTokenSet(o.Config.Tokens),

		reloadFn: o.Reload,
		jobs:     o.Jobs,
	}
	if s.jobs == nil {
		s.jobs = NewJobs(o.Store, "", 0, s.logger)
	}
	s.jobs.use(s)
	s.puller = o.Puller
	if s.puller == nil {
		// Without the relay's Puller: no alerts and no metrics.
		s.puller, _ = delivery.NewPuller(delivery.PullerOptions{Queue: o.Store, Events: o.Store, Logger: o.Logger, Now: s.now})
	}
	return s
}

// Config returns the config the service was built with.
func (s *Service) Config() *config.Config { return s.cfg }

// Authenticate returns the configured token whose secret is secret. It
// takes the same time whichever token matches, or none.
func (s *Service) Authenticate(secret string) (*config.Token, bool) {
	return s.tokens.authenticate("Bearer " + secret)
}

// StoredEvent returns the event with hookrelay id id as stored, body and
// headers included; an unknown id is a 404 error.
func (s *Service) StoredEvent(ctx context.Context, id string) (store.Event, error) {
	ev, err := s.store.GetEvent(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return ev, notFound("no event %q", id)
	}
	return ev, err
}

// wake tells the delivery engine and any consumer waiting in a claim that
// destination has new due work.
func (s *Service) wake(destination string) {
	if s.wakeFn != nil {
		s.wakeFn(destination)
	}
	if s.puller != nil {
		s.puller.Wake(destination)
	}
}

// WithToken returns ctx carrying the token a request was authenticated
// with, for the role checks and the audit lines of the calls it makes.
func WithToken(ctx context.Context, t *config.Token) context.Context { return withToken(ctx, t) }

// StatusOf decides the HTTP status code of an error a Service method
// returned, and the message the caller may see; an internal error gets a
// generic message.
func StatusOf(err error) (int, string) { return statusOf(err) }
