package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/hookrelay/hookrelay/internal/store/storeopen"
)

// runMigrateExport writes hookrelay's migrations for an application's own
// migration tool: golang-migrate's files (NNNN_what.up.sql) in --dir, or
// every migration on standard output. It needs no database.
func runMigrateExport(_ context.Context, env Env, args []string) error {
	fs := newFlagSet(env, "migrate export")
	driver := fs.String("driver", "postgres", "the database: postgres or sqlite")
	schema := fs.String("schema", "", `PostgreSQL: the schema of hookrelay's tables (default "hookrelay")`)
	dir := fs.String("dir", "", "write one file a migration, NNNN_what.up.sql as golang-migrate reads them, in this directory (created if missing); without it, print them")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	ms, err := storeopen.Migrations(*driver, *schema)
	if err != nil {
		return fmt.Errorf("%w: %w", errUsage, err)
	}
	if *dir == "" {
		for _, m := range ms {
			fmt.Fprintln(env.Stdout, m.SQL)
		}
		return nil
	}
	if err := os.MkdirAll(*dir, 0o755); err != nil {
		return fmt.Errorf("export migrations: %w", err)
	}
	for _, m := range ms {
		path := filepath.Join(*dir, strings.TrimSuffix(m.Name, ".sql")+".up.sql")
		if err := os.WriteFile(path, []byte(m.SQL), 0o644); err != nil {
			return fmt.Errorf("export migrations: %w", err)
		}
	}
	fmt.Fprintf(env.Stdout, "wrote %d migrations to %s\n", len(ms), *dir)
	return nil
}
