package sqlstore

import (
	"strings"
	"testing"
)

func TestSnippet(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		body string
		want int
	}{
		{"", 0},
		{"ok", 2},
		{strings.Repeat("a", MaxSnippet), MaxSnippet},
		{strings.Repeat("é", MaxSnippet), MaxSnippet}, // cut in bytes, even within a character
	} {
		got := Snippet(tc.body)
		if len(got) != tc.want || string(got) != tc.body[:tc.want] {
			t.Errorf("Snippet of %d bytes = %d bytes, want its first %d", len(tc.body), len(got), tc.want)
		}
	}
}
