package sqlstore

import (
	"errors"
	"testing"

	"github.com/hookrelay/hookrelay/internal/store"
)

func TestPatterns(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		glob    string
		globPat string // GlobPattern's
		likePat string // LikePattern's
		exact   bool
		err     error
	}{
		{"invoice.paid", "invoice.paid", "invoice.paid", true, nil},
		{"invoice.*", "invoice.*", "invoice.%", false, nil},
		{"invoice.pai?", "invoice.pai?", "invoice.pai_", false, nil},
		{"a%b*", "a%b*", `a\%b%`, false, nil},
		{"a_b?", "a_b?", `a\_b_`, false, nil},
		{`a\b*`, `a\b*`, `a\\b%`, false, nil},
		{`a%_\b*`, `a%_\b*`, `a\%\_\\b%`, false, nil},
		{"a%b", "a%b", "a%b", true, nil}, // compared with =, not LIKE
		{"*.[ab]", "", "", false, store.ErrBadFilter},
		{"a]", "", "", false, store.ErrBadFilter},
	} {
		pattern, exact, err := GlobPattern(tc.glob)
		if pattern != tc.globPat || exact != tc.exact || !errors.Is(err, tc.err) {
			t.Errorf("GlobPattern(%q) = %q, %t, %v; want %q, %t, %v", tc.glob, pattern, exact, err, tc.globPat, tc.exact, tc.err)
		}
		pattern, exact, err = LikePattern(tc.glob)
		if pattern != tc.likePat || exact != tc.exact || !errors.Is(err, tc.err) {
			t.Errorf("LikePattern(%q) = %q, %t, %v; want %q, %t, %v", tc.glob, pattern, exact, err, tc.likePat, tc.exact, tc.err)
		}
	}
}
