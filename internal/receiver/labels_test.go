package receiver

import (
	"fmt"
	"testing"
)

func TestTypeLabelsFoldBeyondTheCap(t *testing.T) {
	t.Parallel()
	var l typeLabels
	for i := range maxTypeLabels {
		if got := l.label("github", fmt.Sprint("type-", i)); got != fmt.Sprint("type-", i) {
			t.Fatalf("type %d labelled %q", i, got)
		}
	}
	if got := l.label("github", "one-too-many"); got != otherType {
		t.Errorf("type past the cap labelled %q, want %q", got, otherType)
	}
	if got := l.label("github", "type-7"); got != "type-7" {
		t.Errorf("a type already labelled became %q", got)
	}
	if got := l.label("shop", "one-too-many"); got != "one-too-many" {
		t.Errorf("another source's first type labelled %q", got)
	}
	if got := l.label("github", ""); got != "" {
		t.Errorf("no type labelled %q", got)
	}
}
