package relay

import (
	"github.com/hookrelay/hookrelay/internal/adminapi"
)

// adminService builds the admin API's service over the relay's store and
// config; the admin API and the console share it. Replays and backfills
// wake this process's delivery engine.
func (r *Relay) adminService() *adminapi.Service {
	return adminapi.NewService(adminapi.Options{
		Store:  r.store,
		Config: r.cfg,
		Logger: r.logger,
		Wake:   r.wake,
		Puller: r.puller,
		Reload: r.Reload,
		Jobs:   r.jobs,
	})
}
