package relay

import (
	"testing"

	"github.com/hookrelay/hookrelay/internal/config"
)

// TestConnCapsKeepDescriptors checks that the derived caps leave
// descriptors for everything but accepted connections, and that
// configured caps win.
func TestConnCapsKeepDescriptors(t *testing.T) {
	t.Parallel()
	cfg := config.Default()
	cfg.Destinations = []config.Destination{{Name: "a", Concurrency: 8}, {Name: "b", Concurrency: 24}}
	for _, nofile := range []uint64{64, 256, 1024, 20000, 1 << 20} {
		public, admin := connCaps(cfg, nofile)
		if public < 1 || admin < minAdminConns {
			t.Errorf("nofile %d: caps %d and %d", nofile, public, admin)
		}
		if nofile >= 1024 && uint64(public+admin)+minReserved+32 > nofile {
			t.Errorf("nofile %d: caps %d + %d leave fewer than %d descriptors", nofile, public, admin, minReserved+32)
		}
	}
	cfg.Ingest.MaxConnections, cfg.Admin.MaxConnections = 100, 7
	if public, admin := connCaps(cfg, 20000); public != 100 || admin != 7 {
		t.Errorf("configured caps: %d and %d, want 100 and 7", public, admin)
	}
}
