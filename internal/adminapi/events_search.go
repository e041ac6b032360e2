package adminapi

import (
	"context"
	"errors"
	"net/http"

	"github.com/hookrelay/hookrelay/internal/adminwire"
	"github.com/hookrelay/hookrelay/internal/store"
)

// maxSearchText bounds the text a search looks for, in bytes.
const maxSearchText = 1 << 10

// errSealedSearch answers a text search of payloads sealed at rest.
var errSealedSearch = &requestError{http.StatusConflict, "text search is not available: payloads are encrypted at rest " +
	"(payload_keys), and the database cannot search what it holds encrypted; search by id with q, " +
	"or narrow the list by source, type and time and open the events"}

// SearchEvents returns one page of the events f selects that s finds,
// newest first, with their deliveries' states: those whose hookrelay id
// or provider event id starts with s.Q, or whose payload holds s.Text,
// read from at most s.Scan events a page (store.DefaultScanLimit when 0),
// with what was read in TextSearch. Without either it is ListEvents. Both
// is a 400; a text search of payloads sealed with payload keys is a 409.
func (s *Service) SearchEvents(ctx context.Context, f adminwire.Filter, search adminwire.Search, cursor string, limit int) (adminwire.EventList, error) {
	switch {
	case search.Q == "" && search.Text == "":
		if search.Scan != 0 {
			return adminwire.EventList{}, badRequest("scan: only with text, which it bounds")
		}
		return s.ListEvents(ctx, f, cursor, limit)
	case search.Q != "" && search.Text != "":
		return adminwire.EventList{}, badRequest("q and text: search by id or by text, not both")
	case search.Q != "" && search.Scan != 0:
		return adminwire.EventList{}, badRequest("scan: only with text, which it bounds")
	case len(search.Q) > store.MaxIdentityLen:
		return adminwire.EventList{}, badRequest("q: at most %d bytes, got %d", store.MaxIdentityLen, len(search.Q))
	case len(search.Text) > maxSearchText:
		return adminwire.EventList{}, badRequest("text: at most %d bytes, got %d", maxSearchText, len(search.Text))
	}
	filter, err := toFilter(f)
	if err != nil {
		return adminwire.EventList{}, err
	}
	scan := min(search.Scan, store.MaxScanLimit)
	if scan < 1 {
		scan = store.DefaultScanLimit
	}
	limit = min(max(limit, 1), maxLimit)
	page, err := s.store.SearchEvents(ctx, store.SearchRequest{
		Filter: filter, Cursor: cursor, Limit: limit,
		IDPrefix: search.Q, Text: []byte(search.Text), ScanLimit: scan,
	})
	switch {
	case errors.Is(err, store.ErrSealedSearch):
		return adminwire.EventList{}, errSealedSearch
	case err != nil:
		return adminwire.EventList{}, err
	}
	out := adminwire.EventList{Events: make([]adminwire.Event, len(page.Events)), NextCursor: page.NextCursor}
	for i, e := range page.Events {
		out.Events[i] = adminwire.EventOf(e)
	}
	if search.Text != "" {
		out.TextSearch = &adminwire.TextSearch{
			Scanned: page.Scanned, ScanLimit: scan, Sealed: page.Sealed,
			OldestScanned: adminwire.OptionalTime(page.OldestScanned), Exhausted: page.Exhausted,
		}
	}
	return out, nil
}
