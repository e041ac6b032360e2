// Package bodyfield reads one scalar value out of a JSON object body by a
// dotted path such as "data.object.id". It is how hookrelay finds provider
// event ids, types and ordering keys inside raw webhook bodies without
// re-encoding them.
package bodyfield

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Lookup returns the value at the dotted path in the JSON object body.
//
// A string returns its decoded value; a number returns its literal text as
// it appears in the body, so that a large integer id is never rounded
// through a float; a boolean returns "true" or "false". Lookup reports false
// when the body is not valid JSON, when a segment of the path is missing or
// is not an object, and when the value is an object, an array or null.
// Segments name object keys only; arrays are not indexed. When a key
// repeats, the last one counts, as in encoding/json.
//
// A string that decoding cannot keep exactly is not read either (false):
// one holding bytes that are not UTF-8, or a \u escape of an unpaired
// surrogate, both of which encoding/json turns into U+FFFD. Read as such,
// the ids "evt_\xfe" and "evt_\xff" would be one id.
func Lookup(body []byte, path string) (string, bool) {
	return lookup(body, path, true)
}

// LookupLossy is Lookup for values where merging is harmless, such as an
// ordering key (two keys read as one only order more): a string that
// decoding cannot keep exactly is read as encoding/json reads it.
func LookupLossy(body []byte, path string) (string, bool) {
	return lookup(body, path, false)
}

func lookup(body []byte, path string, exact bool) (string, bool) {
	start := skipSpace(body, 0)
	if path == "" || start >= len(body) || body[start] != '{' {
		return "", false
	}
	// The first level's scan also validates the whole body.
	first, stop := true, -1
	for seg := range strings.SplitSeq(path, ".") {
		if body[start] != '{' {
			return "", false
		}
		next := -1
		e := members(body, start, 1, func(key []byte, vStart, vEnd int) {
			if keyIs(key, seg) {
				next, stop = vStart, vEnd
			}
		})
		if first && (e < 0 || skipSpace(body, e) != len(body)) {
			return "", false
		}
		if next < 0 {
			return "", false
		}
		start, first = next, false
	}
	if exact && body[start] == '"' && !keepsExactly(body[start+1:stop-1]) {
		return "", false
	}
	return scalar(body[start:stop])
}

// keyIs reports whether the quoted key decodes to seg.
func keyIs(key []byte, seg string) bool {
	if inner := key[1 : len(key)-1]; plain(inner) {
		return string(inner) == seg
	}
	k, ok := unquote(key)
	return ok && k == seg
}

// plain reports whether the inside of a quoted string is its own value:
// no escapes and valid UTF-8, which encoding/json would replace.
func plain(inner []byte) bool {
	return bytes.IndexByte(inner, '\\') < 0 && utf8.Valid(inner)
}

// unquote decodes a valid quoted JSON string.
func unquote(raw []byte) (string, bool) {
	if inner := raw[1 : len(raw)-1]; plain(inner) {
		return string(inner), true
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", false
	}
	return s, true
}

// scalar returns the text of one valid JSON string, number or boolean.
func scalar(raw []byte) (string, bool) {
	switch c := raw[0]; {
	case c == '"':
		return unquote(raw)
	case c == 't' || c == 'f' || c == '-' || ('0' <= c && c <= '9'):
		return string(raw), true
	default: // object, array or null
		return "", false
	}
}

// Valid reports whether path is usable as a configured body path: one or
// more non-empty segments separated by dots, with no white space.
func Valid(path string) error {
	if path == "" {
		return errors.New("path is empty")
	}
	if strings.IndexFunc(path, unicode.IsSpace) >= 0 {
		return fmt.Errorf("path %q contains white space", path)
	}
	for seg := range strings.SplitSeq(path, ".") {
		if seg == "" {
			return fmt.Errorf("path %q has an empty segment", path)
		}
	}
	return nil
}
