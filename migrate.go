package hookrelay

import (
	"context"
	"fmt"
	"strings"

	"github.com/hookrelay/hookrelay/internal/relay"
	"github.com/hookrelay/hookrelay/internal/store/storeopen"
)

// Migrate applies hookrelay's migrations not yet applied to the
// Config's database, and only those: what Start does unless
// Config.ManualMigrations is set. Several processes may migrate at once;
// each migration is applied once. It moves the tables an earlier version
// of hookrelay created next to the application's into their schema (or
// gives them their hookrelay_ prefix on SQLite). Call it before Start, or
// from a deploy step of its own.
func (r *Relay) Migrate(ctx context.Context) error {
	r.mu.Lock()
	c := r.cfg
	r.mu.Unlock()
	cfg, opts, err := c.resolved(ctx, nil)
	if err != nil {
		return err
	}
	st, err := relay.OpenStore(ctx, cfg, opts.Store, r.logger)
	if err != nil {
		return fmt.Errorf("hookrelay: migrate: %w", err)
	}
	defer st.Close()
	if err := st.Migrate(ctx); err != nil {
		return fmt.Errorf("hookrelay: migrate: %w", err)
	}
	return nil
}

// Migration is one of hookrelay's migrations as SQL for the application's
// own migration tool.
type Migration struct {
	// Version orders the migrations, from 1.
	Version int
	// Name is the file's name, NNNN_what.sql.
	Name string
	// SQL is the whole migration, to run once, as one script: it creates
	// hookrelay's schema and its table of applied migrations if missing,
	// makes its changes, and records itself there, so that Start finds it
	// applied.
	SQL string
}

// FileName returns m's file name as golang-migrate reads it:
// NNNN_what.up.sql.
func (m Migration) FileName() string {
	return strings.TrimSuffix(m.Name, ".sql") + ".up.sql"
}

// Migrations returns hookrelay's migrations for driver "postgres", with
// its tables in schema ("" means "hookrelay"), or "sqlite", in order: for
// an application that applies them with its own migration tool and sets
// Config.ManualMigrations. `hookrelay migrate export` writes the same
// files. They do not move an earlier version's tables: a database that
// has them migrates once with Migrate first.
func Migrations(driver, schema string) ([]Migration, error) {
	ms, err := storeopen.Migrations(driver, schema)
	if err != nil {
		return nil, fmt.Errorf("hookrelay: %w", err)
	}
	out := make([]Migration, len(ms))
	for i, m := range ms {
		out[i] = Migration{Version: m.Version, Name: m.Name, SQL: m.SQL}
	}
	return out, nil
}
