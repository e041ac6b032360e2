package cli

import (
	"errors"
	"flag"
	"io"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestParseWhen(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 3, 3, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		in, want string
		usage    bool
	}{
		{"", "", false},
		{"2026-03-03T09:00:00Z", "2026-03-03T09:00:00Z", false},
		{"2026-03-03T10:00:00+01:00", "2026-03-03T09:00:00Z", false},
		{"2026-03-03T09:00:00.5Z", "2026-03-03T09:00:00.5Z", false},
		{"-2h", "2026-03-03T10:00:00Z", false},
		{"-90m", "2026-03-03T10:30:00Z", false},
		{"-3d", "2026-02-28T12:00:00Z", false},
		{"2h", "", true},
		{"-0s", "", true},
		{"-soon", "", true},
		{"yesterday", "", true},
		{"2026-03-03", "2026-03-03T00:00:00Z", false},
		{"now", "2026-03-03T12:00:00Z", false},
		{"-2w", "2026-02-17T12:00:00Z", false},
		{"-0w", "", true},
		{"-1.5w", "", true},
		{"2026-13-01", "", true},
	} {
		got, err := parseWhen("since", tc.in, now)
		if tc.usage {
			if !errors.Is(err, errUsage) {
				t.Errorf("parseWhen(%q) = %q, %v; want a usage error", tc.in, got, err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("parseWhen(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
}

func TestParseArgsInterspersed(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		pos  []string
		json bool
	}{
		{[]string{"ID"}, []string{"ID"}, false},
		{[]string{"ID", "--json"}, []string{"ID"}, true},
		{[]string{"--json", "ID"}, []string{"ID"}, true},
		{[]string{"A", "--json", "B"}, []string{"A", "B"}, true},
	} {
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		asJSON := fs.Bool("json", false, "")
		pos, err := parseArgs(fs, tc.args)
		if err != nil || !slices.Equal(pos, tc.pos) || *asJSON != tc.json {
			t.Errorf("parseArgs(%q) = %q, json %t, %v; want %q, json %t", tc.args, pos, *asJSON, err, tc.pos, tc.json)
		}
	}
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	if _, err := parseArgs(fs, []string{"ID", "--nope"}); !errors.Is(err, errUsage) {
		t.Errorf("an unknown flag after the id: %v, want a usage error", err)
	}
}

// TestConfirm checks the answers to a confirmation, and the refusal
// without a terminal. It replaces the package's terminal, so it does not
// run in parallel.
func TestConfirm(t *testing.T) {
	saved := terminal
	t.Cleanup(func() { terminal = saved })
	env := Env{Stdout: io.Discard, Stderr: io.Discard}
	for _, tc := range []struct {
		input    string
		terminal bool
		yes      bool
		want     error
	}{
		{"", false, true, nil},
		{"", false, false, errUsage},
		{"y\n", true, false, nil},
		{"YES\n", true, false, nil},
		{"n\n", true, false, errCancelled},
		{"\n", true, false, errCancelled},
		{"", true, false, errCancelled},
	} {
		terminal = func() (io.Reader, bool) { return strings.NewReader(tc.input), tc.terminal }
		if err := confirm(env, tc.yes, "Go?", "replay"); !errors.Is(err, tc.want) || (tc.want == nil) != (err == nil) {
			t.Errorf("confirm(terminal %t, yes %t, %q) = %v, want %v", tc.terminal, tc.yes, tc.input, err, tc.want)
		}
	}
}
