package cli

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/hookrelay/hookrelay/internal/relay"
)

// reloadOnHangup reloads r's config on every SIGHUP until ctx is done. A
// refused config is logged by Reload, and the running one stays.
func reloadOnHangup(ctx context.Context, r *relay.Relay) {
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	go func() {
		defer signal.Stop(hup)
		for {
			select {
			case <-ctx.Done():
				return
			case <-hup:
				_, _ = r.Reload(ctx)
			}
		}
	}()
}
