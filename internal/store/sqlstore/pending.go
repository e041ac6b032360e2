package sqlstore

import (
	"context"
	"fmt"
)

// appliedMigrations lists the versions schema_migrations records.
const appliedMigrations = `SELECT version FROM hookrelay.schema_migrations`

// PendingMigrations returns the names of the driver's migrations (see
// Dialect.Migrations) that schema_migrations does not record, in order;
// all of them before the first Migrate. It only reads.
func (o *Ops) PendingMigrations(ctx context.Context) ([]string, error) {
	release, err := o.enter()
	if err != nil {
		return nil, fmt.Errorf("pending migrations: %w", err)
	}
	defer release()
	ms, err := ReadMigrations(o.b.Dialect.Migrations, "migrations")
	if err != nil {
		return nil, fmt.Errorf("pending migrations: %w", err)
	}
	done := map[int]bool{}
	var exists bool
	if err := o.b.Read.QueryRow(ctx, o.b.Dialect.HasMigrations).Scan(&exists); err != nil {
		return nil, o.fail(ctx, "pending migrations", err)
	}
	if exists {
		rows, err := o.b.Read.Query(ctx, appliedMigrations)
		versions, err := collect(rows, err, func(row Rows) (int, error) {
			var v int
			err := row.Scan(&v)
			return v, err
		})
		if err != nil {
			return nil, o.fail(ctx, "pending migrations", err)
		}
		for _, v := range versions {
			done[v] = true
		}
	}
	return Pending(ms, done), nil
}
