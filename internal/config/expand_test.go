package config

import (
	"slices"
	"testing"
)

// env returns a getenv that reads only vars.
func env(vars map[string]string) func(string) string {
	return func(name string) string { return vars[name] }
}

func TestExpand(t *testing.T) {
	t.Parallel()
	getenv := env(map[string]string{"A": "alpha", "B": "beta", "INJECT": "x\nfoo: [bar", "DOLLAR": "${A}"})
	tests := []struct {
		in       string
		want     string
		wantVars []string
		wantErr  bool
	}{
		{in: "plain", want: "plain"},
		{in: "${A}", want: "alpha", wantVars: []string{"A"}},
		{in: "pre-${A}-${B}-post", want: "pre-alpha-beta-post", wantVars: []string{"A", "B"}},
		{in: "${A}${A}", want: "alphaalpha", wantVars: []string{"A"}},
		{in: "${UNSET}", want: "", wantVars: []string{"UNSET"}},
		{in: "${UNSET:-fallback}", want: "fallback", wantVars: []string{"UNSET"}},
		{in: "${A:-fallback}", want: "alpha", wantVars: []string{"A"}},
		{in: "${UNSET:-}", want: "", wantVars: []string{"UNSET"}},
		{in: "${UNSET:-a:-b}", want: "a:-b", wantVars: []string{"UNSET"}},
		{in: "${INJECT}", want: "x\nfoo: [bar", wantVars: []string{"INJECT"}},
		{in: "${DOLLAR}", want: "${A}", wantVars: []string{"DOLLAR"}}, // never expanded twice
		{in: "$${A}", want: "${A}"},
		{in: "$A and $", want: "$A and $"},
		{in: "cost: $5", want: "cost: $5"},
		{in: "${A", wantErr: true},
		{in: "${}", wantErr: true},
		{in: "${1A}", wantErr: true},
		{in: "${A-B}", wantErr: true},
		{in: "${A B}", wantErr: true},
	}
	for _, tt := range tests {
		got, vars, err := expand(tt.in, getenv)
		if tt.wantErr {
			if err == nil {
				t.Errorf("expand(%q) = %q, want an error", tt.in, got)
			}
			continue
		}
		if err != nil || got != tt.want || !slices.Equal(vars, tt.wantVars) {
			t.Errorf("expand(%q) = %q, %q, %v; want %q, %q", tt.in, got, vars, err, tt.want, tt.wantVars)
		}
	}
}
