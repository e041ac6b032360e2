package relay

import (
	"context"
	"time"

	"github.com/hookrelay/hookrelay/internal/retention"
)

// startRetention runs the pruner that deletes finished events past the
// configured retention, and returns the function that stops it.
func (r *Relay) startRetention(ctx context.Context) (stop func()) {
	p := retention.New(retention.Options{
		Store:  r.store,
		Done:   time.Duration(r.cfg.Retention.Done),
		Dead:   time.Duration(r.cfg.Retention.Dead),
		Logger: r.logger,
	})
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		p.Run(ctx)
	}()
	return func() {
		cancel()
		<-done
	}
}
