package sqlstore

import (
	"reflect"
	"testing"
)

func TestHeaders(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		headers map[string][]string
		stored  string
		decoded map[string][]string
	}{
		{"nil", nil, "{}", map[string][]string{}},
		{"empty", map[string][]string{}, "{}", map[string][]string{}},
		{"values", map[string][]string{"X-A": {"1", "2"}, "Y": {""}}, `{"X-A":["1","2"],"Y":[""]}`, map[string][]string{"X-A": {"1", "2"}, "Y": {""}}},
	} {
		stored, err := EncodeHeaders(tc.headers)
		if err != nil || stored != tc.stored {
			t.Errorf("%s: EncodeHeaders = %q, %v; want %q", tc.name, stored, err, tc.stored)
		}
		decoded, err := DecodeHeaders(stored)
		if err != nil || !reflect.DeepEqual(decoded, tc.decoded) {
			t.Errorf("%s: DecodeHeaders(%q) = %v, %v; want %v", tc.name, stored, decoded, err, tc.decoded)
		}
	}
	if h, err := DecodeHeaders("["); err == nil {
		t.Errorf("DecodeHeaders of bad JSON = %v, want an error", h)
	}
}
