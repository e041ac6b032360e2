package sqlstore

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/hookrelay/hookrelay/internal/store"
)

// An attempt's headers column holds no bytes when the attempt kept no
// headers, else a JSON object:
//
//	{"request": {NAME: [VALUE, …], …}, "response": {…}, "dropped": N}
//
// each side bounded (see store.Attempt) and left out when empty, and
// dropped left out when 0. It is written on the outcome path, where
// encoding/json cost as much as the row's write, so it is written by hand
// here and read with encoding/json.

// storedAttemptHeaders is the JSON an attempt's headers column holds.
type storedAttemptHeaders struct {
	Request  map[string][]string `json:"request,omitempty"`
	Response map[string][]string `json:"response,omitempty"`
	Dropped  int                 `json:"dropped,omitempty"`
}

// EncodeAttemptHeaders returns the request and response headers of a as
// both drivers store them, before sealing: no bytes when it has none,
// else their JSON, each side bounded (see store.Attempt).
func EncodeAttemptHeaders(a store.Attempt) []byte {
	if len(a.RequestHeaders) == 0 && len(a.ResponseHeaders) == 0 {
		return nil
	}
	b := make([]byte, 0, 1024)
	b = append(b, '{')
	dropped := 0
	for _, side := range []struct {
		name string
		h    map[string][]string
	}{{"request", a.RequestHeaders}, {"response", a.ResponseHeaders}} {
		if len(side.h) == 0 {
			continue
		}
		if len(b) > 1 {
			b = append(b, ',')
		}
		b = append(b, '"')
		b = append(b, side.name...)
		b = append(b, `":`...)
		var n int
		b, n = appendBounded(b, side.h)
		dropped += n
	}
	if dropped > 0 {
		b = append(b, `,"dropped":`...)
		b = strconv.AppendInt(b, int64(dropped), 10)
	}
	return append(b, '}')
}

// appendBounded appends to b the JSON object of the values of h that an
// attempt keeps, in name order: at most store.MaxAttemptHeaders values
// and store.MaxAttemptHeaderBytes of names and values. A value that does
// not fit is left out, and later, smaller ones may still be kept. It
// returns how many values it left out.
func appendBounded(b []byte, h map[string][]string) ([]byte, int) {
	b = append(b, '{')
	kept, size, dropped := 0, 0, 0
	var room [32]string // the names of most answers, without an allocation
	keys := room[:0]
	for k := range h {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		open := false
		for _, v := range h[k] {
			if kept == store.MaxAttemptHeaders || size+len(k)+len(v) > store.MaxAttemptHeaderBytes {
				dropped++
				continue
			}
			if !open {
				if kept > 0 {
					b = append(b, ',')
				}
				b = appendJSONString(b, k)
				b = append(b, ":["...)
				open = true
			} else {
				b = append(b, ',')
			}
			b = appendJSONString(b, v)
			kept++
			size += len(k) + len(v)
		}
		if open {
			b = append(b, ']')
		}
	}
	return append(b, '}'), dropped
}

// appendJSONString appends s to b as a JSON string: '"' and '\' escaped,
// control characters as \u00XX, and each byte of invalid UTF-8 as
// U+FFFD, as encoding/json writes it.
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c < 0x20:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			default:
				b = append(b, c)
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			b = append(b, `\ufffd`...)
		} else {
			b = append(b, s[i:i+n]...)
		}
		i += n
	}
	return append(b, '"')
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
