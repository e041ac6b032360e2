package libbridge

import (
	"testing"

	"github.com/hookrelay/hookrelay/internal/config"
)

// TestGetReturnsWhatSetGave sets the bridge of this test binary alone.
func TestGetReturnsWhatSetGave(t *testing.T) {
	Set(Bridge[int, string, bool]{Destination: func(d string) config.Destination { return config.Destination{Name: d} }})
	if got := Get[int, string, bool]().Destination("orders").Name; got != "orders" {
		t.Errorf("Get's Destination named %q, want the one Set gave", got)
	}
	defer func() {
		if recover() == nil {
			t.Error("Get of other type parameters than Set's did not panic")
		}
	}()
	Get[string, string, bool]()
}
