package cli

import "testing"

func TestCounted(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		n    int64
		want string
	}{{0, "0 deliveries"}, {1, "1 delivery"}, {2, "2 deliveries"}} {
		if got := counted(c.n, deliveryNoun, deliveriesNoun); got != c.want {
			t.Errorf("counted(%d) = %q, want %q", c.n, got, c.want)
		}
	}
}
