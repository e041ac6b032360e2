package adminwire

import "log/slog"

// Filter selects events, in a replay body. Its fields mean what the query
// parameters of the listing mean.
type Filter struct {
	IDs         []string `json:"ids,omitempty"`
	Source      string   `json:"source,omitempty"`
	Type        string   `json:"type,omitempty"`
	Status      string   `json:"status,omitempty"`
	Destination string   `json:"destination,omitempty"`
	Since       string   `json:"since,omitempty"`
	Until       string   `json:"until,omitempty"`
}

// LogValue logs a filter with the number of its ids rather than the ids,
// which may be thousands.
func (f Filter) LogValue() slog.Value {
	var attrs []slog.Attr
	if len(f.IDs) > 0 {
		attrs = append(attrs, slog.Int("ids", len(f.IDs)))
	}
	for _, kv := range [][2]string{{"source", f.Source}, {"type", f.Type}, {"status", f.Status},
		{"destination", f.Destination}, {"since", f.Since}, {"until", f.Until}} {
		if kv[1] != "" {
			attrs = append(attrs, slog.String(kv[0], kv[1]))
		}
	}
	return slog.GroupValue(attrs...)
}

// ReplayRequest is the body of POST /api/v1/replay.
type ReplayRequest struct {
	Filter
	DryRun bool `json:"dry_run"`
}

// ReplayResult is the answer of POST /api/v1/replay. It counts delivery
// rows.
type ReplayResult struct {
	Matched  int64 `json:"matched"`
	Rearmed  int64 `json:"rearmed"`
	InFlight int64 `json:"in_flight"`
	DryRun   bool  `json:"dry_run"`
	// HandlerDeliveries counts, on a dry run, the deliveries it would
	// re-arm whose destination is a handler destination (a Go function
	// of an application that embeds hookrelay): their handlers run
	// again, and their effects apply again. Absent when none is.
	HandlerDeliveries int64 `json:"handler_deliveries,omitempty"`
	// Warning says that in words, naming the handler destinations, when
	// HandlerDeliveries is not 0.
	Warning string `json:"warning,omitempty"`
}

// BackfillRequest is the body of POST /api/v1/backfill.
type BackfillRequest struct {
	Destination string `json:"destination"`
	Since       string `json:"since"`
	Until       string `json:"until"`
	DryRun      bool   `json:"dry_run"`
}

// BackfillResult is the answer of POST /api/v1/backfill: how many events
// of the window the destination would have received and lack, and how many
// delivery rows were created for them (0 on a dry run).
type BackfillResult struct {
	Matched int64 `json:"matched"`
	Created int64 `json:"created"`
	DryRun  bool  `json:"dry_run"`
}
