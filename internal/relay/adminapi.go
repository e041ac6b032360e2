package relay

import (
	"net/http"

	"github.com/hookrelay/hookrelay/internal/adminapi"
)

// adminAPI builds the admin API's handler over the relay's store and
// config. It serves paths under /api/v1/ as they are: mount it on "/api/".
// Replays and backfills wake this process's delivery engine.
func (r *Relay) adminAPI() http.Handler {
	return adminapi.New(adminapi.Options{
		Store:         r.store,
		Config:        r.cfg,
		Logger:        r.logger,
		Wake:          r.wake,
		SchemeOptions: SchemeOptions,
	})
}
