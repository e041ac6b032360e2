package adminwire

// ReloadSummary is the answer of POST /api/v1/reload: what the running
// config holds now, and the changed keys that only a restart applies.
type ReloadSummary struct {
	Sources         int      `json:"sources"`
	Destinations    int      `json:"destinations"`
	Tokens          int      `json:"tokens"`
	RestartRequired []string `json:"restart_required"`
}
