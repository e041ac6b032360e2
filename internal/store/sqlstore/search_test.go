package sqlstore

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/hookrelay/hookrelay/internal/store"
)

func TestPrefixRange(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ prefix, hi string }{
		{"evt_1", "evt_2"},
		{"a", "b"},
		{"az", "a{"},
		{"é", "ê"},
		{"x\U0010FFFF", "y"},
		{"\U0010FFFF", ""},
		{"a\uD7FF", "a\uE000"},
		{"", ""},
	} {
		lo, hi := PrefixRange(tc.prefix)
		if lo != tc.prefix || hi != tc.hi {
			t.Errorf("PrefixRange(%q) = %q, %q; want %q, %q", tc.prefix, lo, hi, tc.prefix, tc.hi)
		}
		if !utf8.ValidString(hi) {
			t.Errorf("PrefixRange(%q): %q is not UTF-8", tc.prefix, hi)
		}
	}
	// Every string in [lo, hi) starts with the prefix, bytewise.
	lo, hi := PrefixRange("evt_1é")
	for _, s := range []string{"evt_1é", "evt_1éz", "evt_1é\U0010FFFF", "evt_1ê", "evt_1e", "evt_2", "evt_1"} {
		in := s >= lo && s < hi
		if in != strings.HasPrefix(s, "evt_1é") {
			t.Errorf("%q in range %t, has prefix %t", s, in, !in)
		}
	}
}

func TestHookrelayCase(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{"01jtest": "01JTEST", "01JT": "01JT", "evt_1a": "evt_1a", "a-b": "a-b"} {
		if got := hookrelayCase(in); got != want {
			t.Errorf("hookrelayCase(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestMergeNewestFirst(t *testing.T) {
	t.Parallel()
	list := func(ids ...string) []store.EventSummary {
		out := make([]store.EventSummary, len(ids))
		for i, id := range ids {
			out[i].Event.ID = id
		}
		return out
	}
	got := mergeNewestFirst(list("9", "7", "4", "1"), list("8", "7", "2"))
	var ids []string
	for _, e := range got {
		ids = append(ids, e.Event.ID)
	}
	if want := []string{"9", "8", "7", "4", "2", "1"}; !slices.Equal(ids, want) {
		t.Errorf("merged %v, want %v", ids, want)
	}
}
