package cli

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net"
	"net/http"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/hookrelay/hookrelay/internal/config"
	"github.com/hookrelay/hookrelay/internal/fleet"
	"github.com/hookrelay/hookrelay/internal/store"
)

// clockSample is how many of each source's newest events the clock check
// reads.
const clockSample = 20

// skewSlack is how far behind a provider's clock this host may look before
// doctor says so: providers stamp events a moment before sending them, so a
// small negative lag is network and rounding, not skew.
const skewSlack = 2 * time.Second

// checkClock compares each source's newest events' provider times with
// their receive times. A receive time before the provider's time means
// this host's clock was behind the provider's; a receive time after now
// means another relay's clock is ahead of this one's.
func checkClock(ctx context.Context, r *report, cfg *config.Config, sig store.Signals, now time.Time) {
	checked := false
	for _, src := range cfg.Sources {
		times, err := sig.RecentEventTimes(ctx, src.Name, clockSample)
		if err != nil {
			r.add("clock", findingProblem, "%s: cannot read its newest events: %v", src.Name, err)
			continue
		}
		if len(times) == 0 {
			continue
		}
		checked = true
		lags := make([]time.Duration, len(times))
		future := time.Duration(0)
		for i, t := range times {
			lags[i] = t.ReceivedAt.Sub(t.OccurredAt)
			future = max(future, t.ReceivedAt.Sub(now))
		}
		slices.Sort(lags)
		lowest, median := lags[0], lags[len(lags)/2]
		tolerance := time.Duration(src.Tolerance)
		switch {
		case future > skewSlack:
			r.add("clock", findingProblem, "%s: an event was received %s in the future: this host's clock is behind another relay's; run NTP on every relay (timedatectl set-ntp true)",
				src.Name, future.Round(time.Second))
		case lowest < -skewSlack && (tolerance <= 0 || -lowest > tolerance/2):
			r.add("clock", findingProblem, "%s: this host's clock was %s behind the provider's, more than half the tolerance (%s): signed timestamps will be refused; run NTP (timedatectl set-ntp true)",
				src.Name, (-lowest).Round(time.Second), tolerance)
		case lowest < -skewSlack:
			r.add("clock", findingWarn, "%s: this host's clock was up to %s behind the provider's: check NTP (timedatectl status)",
				src.Name, (-lowest).Round(time.Second))
		default:
			r.add("clock", findingOK, "%s: %d newest events, provider lag lowest %s, median %s",
				src.Name, len(times), lowest.Round(time.Millisecond), median.Round(time.Millisecond))
		}
	}
	if !checked {
		r.add("clock", findingOK, "no stored event carries a provider time yet: nothing to compare")
	}
}

// checkRunner names the fleet's runner, the relay process that holds the
// runner's lease in the database; none holds it while no relay runs.
func checkRunner(ctx context.Context, r *report, leases store.FleetLeases) {
	l, err := leases.ReadFleetLease(ctx, fleet.RunnerLease)
	switch {
	case errors.Is(err, store.ErrNotFound) || err == nil && !l.HeldBy(l.Holder):
		r.add("runner", findingOK, "none: no relay runs on this database, or the runner stopped and another takes over within fleet.runner_lease")
	case err != nil:
		r.add("runner", findingProblem, "cannot read the runner's lease: %v", err)
	default:
		r.add("runner", findingOK, "%s runs retention and alert evaluation, for %s", l.Holder, l.Now.Sub(l.Since).Round(time.Second))
	}
}

// probe tells whether the server on addr is hookrelay's.
type probe func(ctx context.Context, addr string) bool

// checkListener reports whether a configured listener's address is free,
// held by a running hookrelay, or held by something else.
func checkListener(ctx context.Context, r *report, key, addr string, isOurs probe) {
	ln, err := net.Listen("tcp", addr)
	if err == nil {
		_ = ln.Close()
		r.add(key, findingOK, "%s is free", addr)
		return
	}
	if !errors.Is(err, syscall.EADDRINUSE) {
		r.add(key, findingProblem, "%s cannot be bound: %v: change %s", addr, err, key)
		return
	}
	if isOurs(ctx, config.DialAddr(addr)) {
		r.add(key, findingOK, "%s is served by a running hookrelay", addr)
		return
	}
	r.add(key, findingProblem, "%s is in use by another program: stop it or change %s", addr, key)
}

var probeClient = &http.Client{Timeout: 2 * time.Second}

// probeAdmin asks the admin listener's /healthz.
func probeAdmin(ctx context.Context, addr string) bool {
	resp, err := probeGet(ctx, "http://"+addr+"/healthz")
	if err != nil {
		return false
	}
	defer resp.Body.Close()
	return resp.StatusCode == http.StatusOK && strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json")
}

// probePublic asks the ingest listener for a webhook with GET, which
// hookrelay answers 405 allowing POST only.
func probePublic(ctx context.Context, addr string) bool {
	resp, err := probeGet(ctx, "http://"+addr+"/webhooks/doctor")
	if err != nil {
		return false
	}
	defer resp.Body.Close()
	return resp.StatusCode == http.StatusMethodNotAllowed && strings.Contains(resp.Header.Get("Allow"), http.MethodPost)
}

func probeGet(ctx context.Context, url string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, fmt.Errorf("probe %s: %w", url, err)
	}
	return probeClient.Do(req)
}

// checkFleet reports the relay processes running on the database and
// whether they, and this config, run the same configuration.
func checkFleet(ctx context.Context, r *report, cfg *config.Config, fleet store.Fleet, now time.Time) {
	nodes, err := fleet.Nodes(ctx, now.Add(-store.NodeGone), time.Time{})
	if err != nil {
		r.add("fleet", findingProblem, "cannot read the relay processes on the database: %v", err)
		return
	}
	if len(nodes) == 0 {
		r.add("fleet", findingOK, "no relay process runs on this database now")
		return
	}
	mine := cfg.Fingerprint()
	byFingerprint := map[string][]string{}
	for _, n := range nodes {
		byFingerprint[n.ConfigFingerprint] = append(byFingerprint[n.ConfigFingerprint], n.ID)
	}
	if _, ok := byFingerprint[mine]; len(byFingerprint) == 1 && ok {
		r.add("fleet", findingOK, "%d relay processes run this config (%s)", len(nodes), mine)
		return
	}
	var groups []string
	for _, fp := range slices.Sorted(maps.Keys(byFingerprint)) {
		groups = append(groups, fmt.Sprintf("%s: %s", fp, strings.Join(byFingerprint[fp], ", ")))
	}
	r.add("fleet", findingWarn, "the relay processes do not all run this config (%s): %s; put the same file on every node, then reload one of them (hookrelay reload): the others follow",
		mine, strings.Join(groups, "; "))
}
