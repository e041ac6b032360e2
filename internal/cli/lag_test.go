package cli

import "testing"

func TestLagText(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		seconds float64
		want    string
	}{
		{0, "0s"},
		{0.0123456, "12ms"},
		{1.26, "1.3s"},
		{75.4, "1m15s"},
		{3 * 3600, "3h0m0s"},
		{63551122.865, "735d"},
		{-0.5, "-500ms"},
	} {
		if got := lagText(c.seconds); got != c.want {
			t.Errorf("lagText(%v) = %q, want %q", c.seconds, got, c.want)
		}
	}
}
