package sqlite

import (
	"errors"
	"testing"

	"github.com/hookrelay/hookrelay/internal/store"
)

func TestGlobPattern(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		glob, pattern string
		exact         bool
		err           error
	}{
		{"invoice.paid", "invoice.paid", true, nil},
		{"invoice.*", "invoice.*", false, nil},
		{"invoice.pai?", "invoice.pai?", false, nil},
		{`a%_\b*`, `a%_\b*`, false, nil},
		{"*.[ab]", "", false, store.ErrBadFilter},
		{"a]", "", false, store.ErrBadFilter},
	} {
		pattern, exact, err := globPattern(tc.glob)
		if pattern != tc.pattern || exact != tc.exact || !errors.Is(err, tc.err) {
			t.Errorf("globPattern(%q) = %q, %t, %v; want %q, %t, %v", tc.glob, pattern, exact, err, tc.pattern, tc.exact, tc.err)
		}
	}
}
