package relay

import (
	"fmt"
	"net"
	"syscall"

	"golang.org/x/net/netutil"

	"github.com/hookrelay/hookrelay/internal/config"
)

// Connection caps derived from the descriptor limit when the config sets
// none. A connection holds a descriptor from accept to close; past the cap
// the kernel queues new ones, so a flood of idle connections cannot take
// the descriptors the database, the delivery engine and the logs need.
const (
	// minReserved is the fewest descriptors kept for everything but
	// accepted connections: the database's files and pool, outgoing
	// deliveries, logs.
	minReserved = 128
	// minAdminConns is the smallest admin cap derived.
	minAdminConns = 16
)

// connCaps returns the public and admin listeners' connection caps: the
// configured ones, or a share of the descriptors left once some are
// reserved — a quarter of the limit, at least minReserved, plus one per
// outgoing delivery slot. The public listener gets seven eighths of the
// rest, the admin listener an eighth.
func connCaps(cfg *config.Config, nofile uint64) (public, admin int) {
	reserved := max(uint64(minReserved), nofile/4)
	for _, d := range cfg.Destinations {
		reserved += uint64(max(d.Concurrency, 0))
	}
	avail := 0
	if nofile > reserved {
		avail = int(min(nofile-reserved, 1<<20))
	}
	public = max(avail*7/8, 1)
	admin = max(avail/8, minAdminConns)
	if cfg.Ingest.MaxConnections > 0 {
		public = cfg.Ingest.MaxConnections
	}
	if cfg.Admin.MaxConnections > 0 {
		admin = cfg.Admin.MaxConnections
	}
	return public, admin
}

// descriptorLimit returns the process's soft limit on open descriptors
// (the Go runtime raises it to the hard limit at start).
func descriptorLimit() (uint64, error) {
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil {
		return 0, fmt.Errorf("read descriptor limit: %w", err)
	}
	return rl.Cur, nil
}

// listenCapped binds addr and caps the connections it holds open at once.
func listenCapped(addr string, limit int) (net.Listener, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("listen %s: %w", addr, err)
	}
	return netutil.LimitListener(ln, limit), nil
}
