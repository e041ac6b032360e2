package cli

import (
	"context"
	"fmt"
	"log/slog"
	"os"

	"github.com/hookrelay/hookrelay/internal/store"
	"github.com/hookrelay/hookrelay/internal/store/storeopen"
)

func runBackup(ctx context.Context, env Env, args []string) error {
	fs := newFlagSet(env, "backup")
	path := addConfigFlag(fs)
	to := fs.String("to", "", "the new file to write the copy to (required; it must not exist)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *to == "" {
		return fmt.Errorf("%w: --to is required: the new file to write the copy to", errUsage)
	}
	cfg, err := loadConfig(env, *path, "database")
	if err != nil {
		return err
	}
	if driver, _ := cfg.DatabaseDriver(); driver != "sqlite" {
		return fmt.Errorf("%w: the database is PostgreSQL: back it up with pg_dump -Fc or base backups (see docs/postgresql.md)", errUsage)
	}
	st, err := storeopen.Open(ctx, cfg.Database, slog.New(slog.DiscardHandler))
	if err != nil {
		return err
	}
	defer st.Close()
	b, ok := st.(store.Backuper)
	if !ok {
		return fmt.Errorf("back up: this store cannot copy itself")
	}
	if err := b.BackupTo(ctx, *to); err != nil {
		return err
	}
	info, err := os.Stat(*to)
	if err != nil {
		return fmt.Errorf("back up: %w", err)
	}
	fmt.Fprintf(env.Stdout, "backed up %s to %s (%d bytes): restore it by stopping the relay and putting it in the database's place\n", cfg.Database, *to, info.Size())
	return nil
}
