package sqlstore

import (
	"encoding/json"
	"fmt"
)

// EncodeHeaders returns headers as the JSON object both drivers store
// them as; nil is {}.
func EncodeHeaders(h map[string][]string) (string, error) {
	if h == nil {
		return "{}", nil
	}
	b, err := json.Marshal(h)
	if err != nil {
		return "", fmt.Errorf("encode headers: %w", err)
	}
	return string(b), nil
}

// DecodeHeaders reads headers stored by EncodeHeaders; {} is an empty,
// non-nil map.
func DecodeHeaders(s string) (map[string][]string, error) {
	h := map[string][]string{}
	if err := json.Unmarshal([]byte(s), &h); err != nil {
		return nil, fmt.Errorf("decode headers: %w", err)
	}
	return h, nil
}
