package adminapi

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hookrelay/hookrelay/internal/adminwire"
	"github.com/hookrelay/hookrelay/internal/store"
	"github.com/hookrelay/hookrelay/internal/when"
)

// maxRequestBody bounds a JSON request body.
const maxRequestBody = 1 << 20

// decodeBody reads a JSON request body into v, refusing unknown fields, so
// that a misspelt filter field is an error rather than a wider replay.
func decodeBody(w http.ResponseWriter, r *http.Request, v any) error {
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxRequestBody))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var mbe *http.MaxBytesError
		switch {
		case errors.As(err, &mbe):
			return badRequest("request body larger than %d bytes", mbe.Limit)
		case errors.Is(err, io.EOF):
			return badRequest("request body is empty; want a JSON object")
		}
		return badRequest("bad JSON body: %v", err)
	}
	if dec.More() {
		return badRequest("bad JSON body: more than one value")
	}
	return nil
}

// earliestTime is the earliest time a filter may name. The zero time means
// "no bound" inside the store, so a time that is zero, or before any event
// could have been received, is refused rather than read as no bound.
var earliestTime = time.Unix(0, 0).UTC()

// parseTime reads a time as an operator writes it (when.Parse: RFC 3339,
// a date, "now" or "-2h"); empty is the zero time (no bound). A time
// before earliestTime is refused.
func parseTime(name, v string) (time.Time, error) {
	if v == "" {
		return time.Time{}, nil
	}
	t, err := when.Parse(v, time.Now())
	if err != nil {
		return time.Time{}, badRequest("%s: want %s, got %q", name, when.Help, v)
	}
	if t.Before(earliestTime) {
		return time.Time{}, badRequest("%s: %q is before %s; leave it out for no bound", name, v, earliestTime.Format(time.RFC3339))
	}
	return t.UTC(), nil
}

// toFilter checks a filter as it came in and returns the store's.
func toFilter(f adminwire.Filter) (store.EventFilter, error) {
	out := store.EventFilter{
		IDs:         f.IDs,
		Source:      f.Source,
		Type:        f.Type,
		Destination: f.Destination,
		Status:      store.DeliveryStatus(f.Status),
	}
	if f.Status != "" && !slices.Contains(store.Statuses, out.Status) {
		return out, badRequest("status: want one of %s, got %q", statusNames(), f.Status)
	}
	var err error
	if out.Since, err = parseTime("since", f.Since); err != nil {
		return out, err
	}
	if out.Until, err = parseTime("until", f.Until); err != nil {
		return out, err
	}
	if !out.Since.IsZero() && !out.Until.IsZero() && !out.Since.Before(out.Until) {
		return out, badRequest("since (%s) must be before until (%s)", f.Since, f.Until)
	}
	for _, id := range f.IDs {
		if id == "" {
			return out, badRequest("ids: an id is empty")
		}
	}
	return out, nil
}

// selectsAll reports whether f selects every event.
func selectsAll(f adminwire.Filter) bool {
	return len(f.IDs) == 0 && f.Source == "" && f.Type == "" && f.Status == "" &&
		f.Destination == "" && f.Since == "" && f.Until == ""
}

func statusNames() string {
	names := make([]string, len(store.Statuses))
	for i, s := range store.Statuses {
		names[i] = string(s)
	}
	return strings.Join(names, ", ")
}

// checkQuery refuses query parameters other than allowed, so that a
// misspelt filter is an error rather than a wider listing.
func checkQuery(q url.Values, allowed ...string) error {
	for k := range q {
		if !slices.Contains(allowed, k) {
			return badRequest("unknown parameter %q (want %s)", k, strings.Join(allowed, ", "))
		}
	}
	return nil
}

// intParam reads a whole-number query parameter between lo and hi; absent
// is def, and a value above hi is hi.
func intParam(q url.Values, name string, def, lo, hi int) (int, error) {
	v := q.Get(name)
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return 0, badRequest("%s: want a whole number, got %q", name, v)
	}
	if n < lo {
		return 0, badRequest("%s: want at least %d, got %d", name, lo, n)
	}
	return min(n, hi), nil
}

// sinceAndLimit reads the since and limit parameters of the record
// listings (rejections, audit): since defaults to no bound, limit to
// defaultLimit, at most maxLimit.
func sinceAndLimit(q url.Values) (time.Time, int, error) {
	limit, err := intParam(q, "limit", defaultLimit, 1, maxLimit)
	if err != nil {
		return time.Time{}, 0, err
	}
	since, err := parseTime("since", q.Get("since"))
	if err != nil {
		return time.Time{}, 0, err
	}
	return since, limit, nil
}
