package config

import "testing"

func TestUnknownName(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		known []string
		want  string
	}{
		{"strpe", []string{"stripe", "github"}, `no source "strpe" in the config (did you mean "stripe"?); it has stripe, github`},
		{"zzzzzz", []string{"stripe", "github"}, `no source "zzzzzz" in the config; it has stripe, github`},
		{"stripe", nil, `no source "stripe" in the config; it has none`},
	} {
		if got := UnknownName("source", tc.name, tc.known); got != tc.want {
			t.Errorf("UnknownName(%q) = %q, want %q", tc.name, got, tc.want)
		}
	}
}
