package console

import (
	"maps"
	"net/http"
	"slices"
	"strings"

	"github.com/hookrelay/hookrelay/internal/adminwire"
)

// overviewView is the overview page's data.
type overviewView struct {
	Sources      []sourceRow
	Destinations []destinationRow
	Range        activityRange
	Ranges       []activityRange
	Charts       []chart
	// Drift lists the nodes of the fleet by the configuration each runs,
	// when they do not all run the same one.
	Drift []driftGroup
}

// driftGroup is the nodes running one configuration.
type driftGroup struct {
	Fingerprint string
	Nodes       []string
}

type sourceRow struct {
	Name  string
	Stats adminwire.SourceStats
}

type destinationRow struct {
	Name  string
	Stats adminwire.DestinationStats
}

// overview answers GET / in a session.
func (c *Console) overview(w http.ResponseWriter, r *http.Request, s *session) {
	stats, err := c.svc.Stats(r.Context())
	if err != nil {
		c.fail(w, r, s, err)
		return
	}
	v := overviewView{Range: activityRanges[0], Ranges: activityRanges}
	for _, ar := range activityRanges {
		if ar.Name == r.URL.Query().Get("range") {
			v.Range = ar
		}
	}
	if v.Charts, err = c.activityCharts(r.Context(), v.Range); err != nil {
		c.fail(w, r, s, err)
		return
	}
	for name, st := range stats.Sources {
		v.Sources = append(v.Sources, sourceRow{Name: name, Stats: st})
	}
	for name, st := range stats.Destinations {
		v.Destinations = append(v.Destinations, destinationRow{Name: name, Stats: st})
	}
	nodes, err := c.svc.Nodes(r.Context())
	if err != nil {
		c.fail(w, r, s, err)
		return
	}
	if nodes.ConfigDrift {
		v.Drift = driftGroups(nodes.Nodes)
	}
	slices.SortFunc(v.Sources, func(a, b sourceRow) int { return strings.Compare(a.Name, b.Name) })
	slices.SortFunc(v.Destinations, func(a, b destinationRow) int { return strings.Compare(a.Name, b.Name) })
	c.render(w, r, s, "overview", "Overview", "overview", v)
}

// driftGroups groups nodes by the configuration they run, by fingerprint.
func driftGroups(nodes []adminwire.NodeStats) []driftGroup {
	by := map[string][]string{}
	for _, n := range nodes {
		by[n.ConfigFingerprint] = append(by[n.ConfigFingerprint], n.ID)
	}
	out := make([]driftGroup, 0, len(by))
	for _, fp := range slices.Sorted(maps.Keys(by)) {
		out = append(out, driftGroup{Fingerprint: fp, Nodes: by[fp]})
	}
	return out
}
