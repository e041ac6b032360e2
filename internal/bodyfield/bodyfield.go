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
)

// Lookup returns the value at the dotted path in the JSON object body.
//
// A string returns its decoded value; a number returns its literal text as
// it appears in the body, so that a large integer id is never rounded
// through a float; a boolean returns "true" or "false". Lookup reports false
// when the body is not valid JSON, when a segment of the path is missing or
// is not an object, and when the value is an object, an array or null.
// Segments name object keys only; arrays are not indexed.
func Lookup(body []byte, path string) (string, bool) {
	if path == "" {
		return "", false
	}
	raw := json.RawMessage(body)
	for seg := range strings.SplitSeq(path, ".") {
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(raw, &obj); err != nil || obj == nil {
			return "", false
		}
		var ok bool
		if raw, ok = obj[seg]; !ok {
			return "", false
		}
	}
	return scalar(raw)
}

// scalar returns the text of a JSON string, number or boolean. raw is one
// complete, valid JSON value as produced by encoding/json.
func scalar(raw json.RawMessage) (string, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "", false
	}
	switch c := raw[0]; {
	case c == '"':
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return "", false
		}
		return s, true
	case c == 't' || c == 'f':
		return string(raw), true
	case c == '-' || ('0' <= c && c <= '9'):
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
