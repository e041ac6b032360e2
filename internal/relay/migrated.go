package relay

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"github.com/hookrelay/hookrelay/internal/config"
	"github.com/hookrelay/hookrelay/internal/store"
	"github.com/hookrelay/hookrelay/internal/store/storeopen"
)

// ErrNotMigrated is what CheckMigrated's error wraps.
var ErrNotMigrated = errors.New("hookrelay's migrations are not all applied")

// CheckMigrated returns an error wrapping ErrNotMigrated, which names the
// migrations missing and the ways to apply them, when st's database lacks
// any of hookrelay's migrations.
func CheckMigrated(ctx context.Context, st store.DB) error {
	pending, err := st.PendingMigrations(ctx)
	if err != nil {
		return fmt.Errorf("check migrations: %w", err)
	}
	if len(pending) == 0 {
		return nil
	}
	names := strings.Join(pending, ", ")
	if len(pending) > 3 {
		names = pending[0] + " … " + pending[len(pending)-1]
	}
	return fmt.Errorf("%w: %d missing (%s): apply them with the application's migration tool "+
		"(the SQL of `hookrelay migrate export`, or hookrelay.Migrations), Relay.Migrate, or `hookrelay migrate`",
		ErrNotMigrated, len(pending), names)
}

// OpenStore opens the store of cfg's database with opts and the config's
// encryption keys, without migrating it.
func OpenStore(ctx context.Context, cfg *config.Config, opts storeopen.Options, logger *slog.Logger) (store.DB, error) {
	keys, err := cfg.KeyRing()
	if err != nil {
		return nil, err
	}
	opts.Keys = keys
	return storeopen.OpenWith(ctx, cfg.Database, opts, logger)
}
