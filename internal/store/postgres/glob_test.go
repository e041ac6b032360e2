package postgres

import (
	"errors"
	"testing"

	"github.com/hookrelay/hookrelay/internal/store"
)

func TestLikePattern(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		glob, pattern string
		exact         bool
		err           error
	}{
		{"invoice.paid", "invoice.paid", true, nil},
		{"invoice.*", "invoice.%", false, nil},
		{"invoice.pai?", "invoice.pai_", false, nil},
		{"a%b*", `a\%b%`, false, nil},
		{"a_b?", `a\_b_`, false, nil},
		{`a\b*`, `a\\b%`, false, nil},
		{"a%b", "a%b", true, nil}, // compared with =, not LIKE
		{"*.[ab]", "", false, store.ErrBadFilter},
		{"a]", "", false, store.ErrBadFilter},
	} {
		pattern, exact, err := likePattern(tc.glob)
		if pattern != tc.pattern || exact != tc.exact || !errors.Is(err, tc.err) {
			t.Errorf("likePattern(%q) = %q, %t, %v; want %q, %t, %v", tc.glob, pattern, exact, err, tc.pattern, tc.exact, tc.err)
		}
	}
}
