package relay_test

import (
	"context"
	"errors"
	"testing"

	"github.com/hookrelay/hookrelay/internal/config"
	"github.com/hookrelay/hookrelay/internal/relay"
	"github.com/hookrelay/hookrelay/internal/testkit/testdb"
)

// TestReloadRefusedOnceShuttingDown checks that a relay that has begun to
// shut down refuses a reload, as one another node announces may come at
// any moment: it would swap in a receiver and its tally after shutdown
// closed the old ones, and leave them open.
func TestReloadRefusedOnceShuttingDown(t *testing.T) {
	t.Parallel()
	db := testdb.SQLiteURL(t)
	r := startRelay(t, db, "")
	cfg := relayConfig(t, db, "")
	r.SetConfigLoader(func() (*config.Config, error) { return cfg, nil })
	if _, err := r.Reload(context.Background()); err != nil {
		t.Fatalf("reload of a running relay: %v", err)
	}
	if err := r.Shutdown(context.Background()); err != nil {
		t.Fatalf("shutdown: %v", err)
	}
	if _, err := r.Reload(context.Background()); !errors.Is(err, relay.ErrShuttingDown) {
		t.Errorf("reload after shutdown: error %v, want ErrShuttingDown", err)
	}
}
