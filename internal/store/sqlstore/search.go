package sqlstore

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/hookrelay/hookrelay/internal/store"
)

const (
	// providerPrefixIDs returns the ids of up to ?3 events whose provider
	// id is in [?1, ?2), from the (source, provider_event_id) index of
	// event_keys (migration 0038) for each source stored: the sources are
	// found one index probe each (the least source above the last one
	// found) rather than by reading every event's.
	providerPrefixIDs = `WITH RECURSIVE s(source) AS (
	SELECT min(source) FROM hookrelay.event_keys
	UNION ALL
	SELECT (SELECT min(k.source) FROM hookrelay.event_keys k WHERE k.source > s.source) FROM s WHERE s.source IS NOT NULL
)
SELECT k.event_id FROM s JOIN hookrelay.event_keys k ON k.source = s.source
WHERE k.provider_event_id >= ? AND k.provider_event_id < ?
LIMIT ?`

	// sourcePrefixIDs is providerPrefixIDs for one source, ?1.
	sourcePrefixIDs = `SELECT event_id FROM hookrelay.event_keys
WHERE source = ? AND provider_event_id >= ? AND provider_event_id < ?
LIMIT ?`

	// searchText reads, newest first, at most %[2]s of the events its
	// conditions (%[1]s) select, and returns, newest first, up to
	// %[4]s of those that are stored plain and whose body holds the bytes
	// of %[3]s (Dialect.BodyContains). On PostgreSQL the inner scan stops
	// as soon as enough have matched: the planner knows its rows come in
	// id order, the order the outer query asks for. SQLite sorts the
	// matches instead (EXPLAIN QUERY PLAN: a temporary B-tree for the
	// ORDER BY), so it reads the whole scan, which its limit bounds.
	searchText = `SELECT ` + listColumns + `
FROM (SELECT e.id, e.source, e.provider_event_id, e.id_origin, e.type, e.content_type,
		e.signature_slot, e.occurred_at, e.received_at, e.body, e.key_id
	FROM hookrelay.events e
	WHERE %[1]s
	ORDER BY e.id DESC
	LIMIT %[2]s) e
WHERE e.key_id IS NULL AND %[3]s
ORDER BY e.id DESC
LIMIT %[4]s`

	// scannedText tells what searchText read: how many events, the
	// oldest id, how many were sealed, and the oldest receive time; the
	// conditions (%[1]s) bound the scan below by the page's last match
	// when the page is full.
	scannedText = `SELECT count(*), coalesce(min(e.id), ''),
	coalesce(sum(CASE WHEN e.key_id IS NULL THEN 0 ELSE 1 END), 0), min(e.received_at)
FROM (SELECT e.id, e.key_id, e.received_at FROM hookrelay.events e
	WHERE %[1]s
	ORDER BY e.id DESC
	LIMIT %[2]s) e`
)

// SearchEvents returns one page of the events req selects (see
// store.Search). A search by id prefix merges two pages read by index:
// the events whose id is in the prefix's range, and those whose provider
// id is (looked up first, at most store.MaxIDPrefixMatches of them, or
// else matched while walking the events newest first). A text search
// reads at most req.ScanLimit events for a page, then counts what it read.
func (o *Ops) SearchEvents(ctx context.Context, req store.SearchRequest) (store.SearchPage, error) {
	switch {
	case req.IDPrefix != "" && len(req.Text) > 0:
		return store.SearchPage{}, fmt.Errorf("search events: %w: search by id or by text, not both", store.ErrBadFilter)
	case req.IDPrefix == "" && len(req.Text) == 0:
		events, next, err := o.ListEvents(ctx, store.ListRequest{Filter: req.Filter, Cursor: req.Cursor, Limit: req.Limit})
		return store.SearchPage{Events: events, NextCursor: next}, err
	case len(req.Text) > 0 && o.b.Payloads.Keys != nil:
		return store.SearchPage{}, fmt.Errorf("search events: %w", store.ErrSealedSearch)
	case req.IDPrefix != "" && !StorableText(req.IDPrefix):
		return store.SearchPage{}, fmt.Errorf("search events: %w: an id is UTF-8 text without NUL", store.ErrBadFilter)
	}
	release, err := o.enter()
	if err != nil {
		return store.SearchPage{}, fmt.Errorf("search events: %w", err)
	}
	defer release()
	var page store.SearchPage
	if req.IDPrefix != "" {
		page, err = o.searchIDs(ctx, req)
	} else {
		page, err = o.searchText(ctx, req)
	}
	if err != nil {
		return store.SearchPage{}, o.searchFailed(ctx, err)
	}
	if err := o.attachStates(ctx, page.Events); err != nil {
		return store.SearchPage{}, o.fail(ctx, "search events", err)
	}
	return page, nil
}

// searchFailed wraps an error of a search: a bad filter as it is, any
// other mapped.
func (o *Ops) searchFailed(ctx context.Context, err error) error {
	if errors.Is(err, store.ErrBadFilter) {
		return fmt.Errorf("search events: %w", err)
	}
	return o.fail(ctx, "search events", err)
}

// StorableText reports whether s can be compared with a stored id: UTF-8
// without NUL.
func StorableText(s string) bool {
	return utf8.ValidString(s) && !strings.ContainsRune(s, 0)
}

// searchIDs reads the page of a search by id prefix.
func (o *Ops) searchIDs(ctx context.Context, req store.SearchRequest) (store.SearchPage, error) {
	list := store.ListRequest{Filter: req.Filter, Cursor: req.Cursor, Limit: req.Limit}
	lo, hi := PrefixRange(hookrelayCase(req.IDPrefix))
	ours, err := NewPage(o.b.Dialect, listEvents, list, func(w *Where) { w.inRange("e.id", lo, hi) })
	if err != nil {
		return store.SearchPage{}, err
	}
	events, err := o.listPage(ctx, ours.Query, ours.Args, ours.Room())
	if err != nil {
		return store.SearchPage{}, err
	}

	lo, hi = PrefixRange(req.IDPrefix)
	ids, err := o.providerPrefixIDs(ctx, req.Filter.Source, lo, hi)
	if err != nil {
		return store.SearchPage{}, err
	}
	var theirs Page
	switch {
	case len(ids) > store.MaxIDPrefixMatches:
		theirs, err = NewPage(o.b.Dialect, listEvents, list, func(w *Where) { w.inRange("e.provider_event_id", lo, hi) })
	case len(ids) > 0:
		if len(req.Filter.IDs) > 0 {
			ids = slices.DeleteFunc(ids, func(id string) bool { return !slices.Contains(req.Filter.IDs, id) })
		}
		if len(ids) == 0 {
			break
		}
		list.Filter.IDs = ids
		theirs, err = NewPage(o.b.Dialect, listEvents, list)
	}
	if err != nil {
		return store.SearchPage{}, err
	}
	if theirs.Query != "" {
		more, err := o.listPage(ctx, theirs.Query, theirs.Args, theirs.Room())
		if err != nil {
			return store.SearchPage{}, err
		}
		events = mergeNewestFirst(events, more)
	}
	var page store.SearchPage
	page.Events, page.NextCursor = ours.Cut(events)
	return page, nil
}

// providerPrefixIDs returns the ids of the events of source (every source
// when empty) whose provider id is in [lo, hi), at most one more than
// store.MaxIDPrefixMatches.
func (o *Ops) providerPrefixIDs(ctx context.Context, source, lo, hi string) ([]string, error) {
	if hi == "" {
		hi = AboveEveryID
	}
	var (
		rows Rows
		err  error
	)
	if source == "" {
		rows, err = o.b.Read.Query(ctx, providerPrefixIDs, lo, hi, store.MaxIDPrefixMatches+1)
	} else {
		rows, err = o.b.Read.Query(ctx, sourcePrefixIDs, source, lo, hi, store.MaxIDPrefixMatches+1)
	}
	return collect(rows, err, func(r Rows) (string, error) {
		var id string
		err := r.Scan(&id)
		return id, err
	})
}

// inRange adds the condition that column is in [lo, hi), or at least lo
// when hi is empty.
func (w *Where) inRange(column, lo, hi string) {
	w.Add(column+" >= %s", lo)
	if hi != "" {
		w.Add(column+" < %s", hi)
	}
}

// mergeNewestFirst merges two lists of events, each newest first by id,
// into one, an event in both once.
func mergeNewestFirst(a, b []store.EventSummary) []store.EventSummary {
	out := make([]store.EventSummary, 0, len(a)+len(b))
	for len(a) > 0 || len(b) > 0 {
		switch {
		case len(b) == 0 || len(a) > 0 && a[0].Event.ID > b[0].Event.ID:
			out, a = append(out, a[0]), a[1:]
		case len(a) == 0 || b[0].Event.ID > a[0].Event.ID:
			out, b = append(out, b[0]), b[1:]
		default: // the same event
			out, a, b = append(out, a[0]), a[1:], b[1:]
		}
	}
	return out
}

// PrefixRange returns the range [lo, hi) of the strings that start with
// prefix, in the bytewise order both databases compare ids in (the "C"
// collation in PostgreSQL): lo is the prefix, hi the prefix with its last
// character that can be raised raised by one, and the characters after it
// dropped. hi is empty when no string bounds the range (a prefix of
// U+10FFFF only). A prefix must be valid UTF-8, whose bytewise order is
// the order of its code points.
func PrefixRange(prefix string) (lo, hi string) {
	runes := []rune(prefix)
	for i := len(runes) - 1; i >= 0; i-- {
		switch r := runes[i]; {
		case r == utf8.MaxRune:
			continue
		case r == 0xD7FF: // the surrogates are no characters
			runes[i] = 0xE000
		default:
			runes[i] = r + 1
		}
		return prefix, string(runes[:i+1])
	}
	return prefix, ""
}

// hookrelayCase returns a prefix of a hookrelay id as the ids are written
// (upper-case ULIDs), when it could be one: letters and digits only.
func hookrelayCase(prefix string) string {
	for i := 0; i < len(prefix); i++ {
		c := prefix[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return prefix
		}
	}
	return strings.ToUpper(prefix)
}

// searchText reads the page of a text search, and what it read.
func (o *Ops) searchText(ctx context.Context, req store.SearchRequest) (store.SearchPage, error) {
	limit := req.Limit
	if limit < 1 {
		limit = DefaultListLimit
	}
	scan := req.ScanLimit
	if scan < 1 {
		scan = store.DefaultScanLimit
	}
	scan = min(scan, store.MaxScanLimit)

	w, err := o.scanWhere(req, "")
	if err != nil {
		return store.SearchPage{}, err
	}
	scanArg := w.Arg(scan)
	contains := fmt.Sprintf(o.b.Dialect.BodyContains, w.Arg(req.Text))
	limitArg := w.Arg(limit + 1)
	q := fmt.Sprintf(searchText, w.SQL(), scanArg, contains, limitArg)
	p := Page{Limit: limit}
	events, err := o.listPage(ctx, q, w.Args(), p.Room())
	if err != nil {
		return store.SearchPage{}, err
	}
	var page store.SearchPage
	page.Events, page.NextCursor = p.Cut(events)

	if w, err = o.scanWhere(req, page.NextCursor); err != nil {
		return store.SearchPage{}, err
	}
	scanArg = w.Arg(scan)
	var oldestID string
	err = o.b.Read.QueryRow(ctx, fmt.Sprintf(scannedText, w.SQL(), scanArg), w.Args()...).
		Scan(&page.Scanned, &oldestID, &page.Sealed, At(&page.OldestScanned))
	if err != nil {
		return store.SearchPage{}, err
	}
	if page.NextCursor == "" {
		if page.Scanned == int64(scan) {
			page.NextCursor = oldestID // the scan stopped at its bound
		} else {
			page.Exhausted = true
		}
	}
	return page, nil
}

// scanWhere returns the conditions of the events a text search reads:
// those its filter selects, below its cursor, and, when floor is set, at
// or above it.
func (o *Ops) scanWhere(req store.SearchRequest, floor string) (*Where, error) {
	w := NewWhere(o.b.Dialect)
	if err := w.FilterEvents(req.Filter); err != nil {
		return nil, err
	}
	if req.Cursor != "" {
		w.Add("e.id < %s", req.Cursor)
	}
	if floor != "" {
		w.Add("e.id >= %s", floor)
	}
	return w, nil
}
