package adminwire

// PurgeRequest is the body of POST /api/v1/purge. It names one selector:
// ids; a source's provider event id (source and provider_event_id); or a
// value at a JSON path of the body (path and value), across the events of
// source, since and until when set. Reason is required.
type PurgeRequest struct {
	IDs             []string `json:"ids,omitempty"`
	Source          string   `json:"source,omitempty"`
	ProviderEventID string   `json:"provider_event_id,omitempty"`
	Path            string   `json:"path,omitempty"`
	// Value is compared with the scalar at Path as text: a string's
	// decoded value, a number's literal, true or false.
	Value  string `json:"value,omitempty"`
	Since  string `json:"since,omitempty"`
	Until  string `json:"until,omitempty"`
	Reason string `json:"reason"`
	DryRun bool   `json:"dry_run"`
}

// PurgeResult is the answer of POST /api/v1/purge. It counts events.
type PurgeResult struct {
	// Matched is how many events the selector selects that were not
	// purged before; Purged how many were purged (0 on a dry run).
	Matched int64 `json:"matched"`
	Purged  int64 `json:"purged"`
	// AlreadyPurged counts the events named by id that were purged
	// before: nothing is done to them.
	AlreadyPurged int64 `json:"already_purged"`
	// DeliveriesEnded counts the pending, failed or processing
	// deliveries of the purged events, now purged.
	DeliveriesEnded int64 `json:"deliveries_ended"`
	// Scanned counts the bodies a path selector read.
	Scanned int64 `json:"scanned"`
	DryRun  bool  `json:"dry_run"`
	// FollowUpSQL is the statement an operator runs on the database for
	// the purged bytes to leave its files, when the purge could not
	// remove them itself (PostgreSQL always; SQLite when readers kept
	// its write-ahead log in use). Empty: they are gone already.
	FollowUpSQL string `json:"follow_up_sql,omitempty"`
}
