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

// OpenStore opens the store of cfg's database with opts, the config's
// encryption keys and its partition period, without migrating it.
func OpenStore(ctx context.Context, cfg *config.Config, opts storeopen.Options, logger *slog.Logger) (store.DB, error) {
	keys, err := cfg.KeyRing()
	if err != nil {
		return nil, err
	}
	opts.Keys = keys
	opts.Partitions = store.PartitionPeriod(cfg.Retention.Partitions)
	return storeopen.OpenWith(ctx, cfg.Database, opts, logger)
}

// ErrPartitionsDisagree is what CheckPartitions's error wraps.
var ErrPartitionsDisagree = errors.New("retention.partitions and the database disagree")

// CheckPartitions returns an error wrapping ErrPartitionsDisagree, which
// says what to do, when the config's retention.partitions and the layout
// of st's event log disagree: partitions asked for on a database that
// holds events unpartitioned (converting it is a step of its own, never
// done by a start), or a partitioned event log without the period that
// maintains it.
func CheckPartitions(ctx context.Context, cfg *config.Config, st store.Partitions) error {
	partitioned, err := st.Partitioned(ctx)
	if err != nil {
		return fmt.Errorf("check partitions: %w", err)
	}
	switch want := cfg.Retention.Partitions; {
	case want != "" && !partitioned:
		return fmt.Errorf("%w: retention.partitions is %s, but the event log of this database is one table that holds events: "+
			"convert it with `hookrelay partitions enable`, the relays stopped (see docs/retention.md), or remove the key", ErrPartitionsDisagree, want)
	case want == "" && partitioned:
		return fmt.Errorf("%w: the event log of this database is partitioned: set retention.partitions (daily or hourly), "+
			"so that its partitions are created ahead and dropped past the retention", ErrPartitionsDisagree)
	}
	return nil
}
