package store

import (
	"context"
	"errors"
	"time"
)

// ErrSealedSearch reports a text search on a store whose payloads are
// sealed with payload keys: a database can compare only the bytes it
// holds, and it holds ciphertext.
var ErrSealedSearch = errors.New("store: payloads are sealed with payload keys and cannot be searched by text")

// Bounds of a search.
const (
	// MaxIDPrefixMatches is the most provider event ids a search by id
	// prefix looks up through the (source, provider id) index; a prefix
	// that more ids start with is matched while walking the events newest
	// first instead, which finds a page quickly as so many match.
	MaxIDPrefixMatches = 1000
	// DefaultScanLimit is the ScanLimit of a text search without one.
	DefaultScanLimit = 10_000
	// MaxScanLimit is the largest ScanLimit a text search takes.
	MaxScanLimit = 100_000
)

// SearchRequest asks for one page, newest first, of the events Filter
// selects that also match IDPrefix or Text (one of them; a search with
// neither is a listing).
type SearchRequest struct {
	Filter EventFilter
	// Cursor is the NextCursor of the previous page; empty for the first.
	Cursor string
	// Limit is the page size.
	Limit int
	// IDPrefix selects the events whose hookrelay id or provider event
	// id starts with it. A hookrelay id is matched whatever the case of
	// its letters, a provider's exactly. Both are looked up by index.
	IDPrefix string
	// Text selects the events whose body holds these bytes, exactly (case
	// included). It reads bodies, so it is bounded: a page reads at most
	// ScanLimit of the events Filter selects, newest first below Cursor,
	// and reports how far it read (see SearchPage).
	Text []byte
	// ScanLimit bounds the events a text search reads for one page:
	// DefaultScanLimit when below 1, at most MaxScanLimit.
	ScanLimit int
}

// SearchPage is one page of a search.
type SearchPage struct {
	Events []EventSummary
	// NextCursor continues the search below this page; empty when
	// nothing is left to search. After a text search it is also set when
	// the page holds fewer events than its limit but the scan stopped at
	// its ScanLimit: the next page searches the events below.
	NextCursor string
	// What a text search read for this page (zero otherwise): how many
	// events, how many of them are sealed (a store opened without keys,
	// holding rows sealed by one that had them) and were not searched,
	// and the receive time of the oldest. Exhausted is set when it read
	// every event the filter selects below the cursor.
	Scanned       int64
	Sealed        int64
	OldestScanned time.Time
	Exhausted     bool
}

// Search finds events by a part of their ids or of their payload.
type Search interface {
	// SearchEvents returns one page of the events req selects, newest
	// first, with their deliveries, as ListEvents lists them. Both
	// IDPrefix and Text, or a bad glob or status, is ErrBadFilter; a
	// text search on a store with payload keys is ErrSealedSearch.
	SearchEvents(ctx context.Context, req SearchRequest) (SearchPage, error)
}
