package adminwire

import "time"

// Search is what GET /api/v1/events searches for beside its filter: q, a
// hookrelay id or provider event id or the start of one, or text, bytes
// the payload holds, read from at most scan events a page. Zero fields do
// not search.
type Search struct {
	Q    string
	Text string
	Scan int
}

// TextSearch tells what a text search read for one page of the listing.
type TextSearch struct {
	// Scanned counts the events it read: those the filter selects,
	// newest first below the cursor, at most ScanLimit.
	Scanned   int64 `json:"scanned"`
	ScanLimit int   `json:"scan_limit"`
	// Sealed counts those of them whose payload is sealed with a payload
	// key, which a text search cannot read: they were not searched.
	Sealed int64 `json:"sealed"`
	// OldestScanned is the receive time of the oldest event it read; null
	// when it read none.
	OldestScanned *time.Time `json:"oldest_scanned"`
	// Exhausted tells whether it read every event the filter selects
	// below the cursor. When it did not, next_cursor continues the search
	// below the oldest event read, even after a page with fewer events
	// than its limit, or none.
	Exhausted bool `json:"exhausted"`
}
