package sqlstore

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"github.com/hookrelay/hookrelay/internal/store"
)

// storedAttemptHeaders is the JSON an attempt's headers column holds when
// it holds any: both sides, and how many values were left out.
type storedAttemptHeaders struct {
	Request  map[string][]string `json:"request,omitempty"`
	Response map[string][]string `json:"response,omitempty"`
	Dropped  int                 `json:"dropped,omitempty"`
}

// EncodeAttemptHeaders returns the request and response headers of a as
// both drivers store them, before sealing: no bytes when it has none,
// else their JSON, each side bounded (see store.Attempt).
func EncodeAttemptHeaders(a store.Attempt) ([]byte, error) {
	if len(a.RequestHeaders) == 0 && len(a.ResponseHeaders) == 0 {
		return nil, nil
	}
	var h storedAttemptHeaders
	var droppedReq, droppedResp int
	h.Request, droppedReq = BoundHeaders(a.RequestHeaders)
	h.Response, droppedResp = BoundHeaders(a.ResponseHeaders)
	h.Dropped = droppedReq + droppedResp
	b, err := json.Marshal(h)
	if err != nil {
		return nil, fmt.Errorf("encode attempt headers: %w", err)
	}
	return b, nil
}

// DecodeAttemptHeaders sets a's headers from their stored bytes, opened;
// no bytes leaves them nil.
func DecodeAttemptHeaders(b []byte, a *store.Attempt) error {
	if len(b) == 0 {
		return nil
	}
	var h storedAttemptHeaders
	if err := json.Unmarshal(b, &h); err != nil {
		return fmt.Errorf("decode attempt headers: %w", err)
	}
	a.RequestHeaders, a.ResponseHeaders, a.HeadersDropped = h.Request, h.Response, h.Dropped
	return nil
}

// BoundHeaders returns the values of h that an attempt keeps, in name
// order: at most store.MaxAttemptHeaders values and
// store.MaxAttemptHeaderBytes of names and values. A value that does not
// fit is left out, and later, smaller ones may still be kept. It returns
// how many values it left out; nil when h has none.
func BoundHeaders(h map[string][]string) (map[string][]string, int) {
	if len(h) == 0 {
		return nil, 0
	}
	out := make(map[string][]string, min(len(h), store.MaxAttemptHeaders))
	kept, size, dropped := 0, 0, 0
	for _, k := range slices.Sorted(maps.Keys(h)) {
		for _, v := range h[k] {
			if kept == store.MaxAttemptHeaders || size+len(k)+len(v) > store.MaxAttemptHeaderBytes {
				dropped++
				continue
			}
			out[k] = append(out[k], v)
			kept++
			size += len(k) + len(v)
		}
	}
	return out, dropped
}
