package hookrelay

import "time"

// SetLeaseMargin sets how much longer than its Timeout each handler's
// claim is leased, before Start: a test that takes the process down
// inside a handler shortens it, so that the next run finds the lost
// attempt in a moment rather than after the default 30 seconds.
func SetLeaseMargin(r *Relay, d time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.leaseMargin = d
}

// SetRouteRefresh sets how often the Relay's Receiver reads the handler
// destinations other replicas registered, before Start: a test slows it
// down to play a replica that has not read a registration yet.
func SetRouteRefresh(r *Relay, d time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.routeRefresh = d
}
