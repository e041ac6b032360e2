package relay

import (
	"net/http"

	"github.com/hookrelay/hookrelay/internal/adminapi"
	"github.com/hookrelay/hookrelay/internal/console"
)

// console builds the web console over the admin API's service. It serves
// "/" and what the admin listener routes nowhere else.
func (r *Relay) console(svc *adminapi.Service) http.Handler {
	return console.New(console.Options{
		Service: svc,
		Store:   r.store,
		Logger:  r.logger,
	})
}
