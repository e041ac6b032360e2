package main

import (
	"embed"
	"errors"
	"fmt"
	"log/slog"

	"github.com/golang-migrate/migrate/v4"
	migratedb "github.com/golang-migrate/migrate/v4/database"
	migratepgx "github.com/golang-migrate/migrate/v4/database/pgx/v5"
	migratesqlite "github.com/golang-migrate/migrate/v4/database/sqlite"
	"github.com/golang-migrate/migrate/v4/source/iofs"
	"github.com/jackc/pgx/v5/stdlib"
)

// hookrelay's migrations are generated: `go generate ./examples/orders`
// writes them again after hookrelay changes (TestHookrelayMigrationsCurrent
// fails until it has).
//go:generate rm -rf migrations/hookrelay
//go:generate go run ../../cmd/hookrelay migrate export --driver postgres --schema hookrelay --dir migrations/hookrelay/postgres
//go:generate go run ../../cmd/hookrelay migrate export --driver sqlite --dir migrations/hookrelay/sqlite

// migrationFiles holds two sets of migrations for each driver: the
// application's own, migrations/app/DRIVER, and hookrelay's,
// migrations/hookrelay/DRIVER, as `hookrelay migrate export` wrote them.
//
//go:embed migrations
var migrationFiles embed.FS

// migrationSet is one sequence of migrations and the golang-migrate table
// that records how far the database is along it.
type migrationSet struct {
	name  string // its directory under migrations/
	table string
}

// migrationSets are applied in this order. Each has a version table of its
// own, so that the two sequences of versions never meet: the application's
// is golang-migrate's default, schema_migrations, and hookrelay's is named
// apart from it and from hookrelay's own record of its migrations
// (hookrelay.schema_migrations on PostgreSQL, hookrelay_schema_migrations
// on SQLite), which its migrations write and Start reads.
var migrationSets = []migrationSet{
	{name: "app", table: "schema_migrations"},
	{name: "hookrelay", table: "hookrelay_golang_migrate"},
}

// migrate applies, with golang-migrate, the migrations of the application
// and then those of hookrelay that the database lacks. Replicas that start
// together on PostgreSQL take turns (golang-migrate holds an advisory lock
// per set while it migrates).
func (a *app) migrate(logger *slog.Logger) error {
	for _, set := range migrationSets {
		version, err := a.migrateUp("migrations/"+set.name+"/"+a.driver(), set.table)
		if err != nil {
			return fmt.Errorf("migrate the %s tables: %w", set.name, err)
		}
		logger.Info("migrations applied", "set", set.name, "version", version)
	}
	return nil
}

// migrateUp applies the migrations of dir not yet recorded in table and
// returns the version the database is at.
func (a *app) migrateUp(dir, table string) (uint, error) {
	src, err := iofs.New(migrationFiles, dir)
	if err != nil {
		return 0, fmt.Errorf("read migrations: %w", err)
	}
	defer src.Close()
	db, release, err := a.migrateDriver(table)
	if err != nil {
		return 0, err
	}
	defer release()
	// Not m.Close: it would close the driver, and with it the
	// application's SQLite handle.
	m, err := migrate.NewWithInstance("iofs", src, a.driver(), db)
	if err != nil {
		return 0, err
	}
	if err := m.Up(); err != nil && !errors.Is(err, migrate.ErrNoChange) {
		return 0, err
	}
	version, _, err := m.Version()
	return version, err
}

// migrateDriver returns golang-migrate's driver on the application's pool
// or handle, recording versions in table, and how to let go of it. On
// PostgreSQL the driver runs on a database/sql view of the pool, which it
// closes without closing the pool; on SQLite it runs on the application's
// handle itself, which its Close would close, so that it is let go of by
// leaving it.
func (a *app) migrateDriver(table string) (migratedb.Driver, func(), error) {
	if a.pool != nil {
		db := stdlib.OpenDBFromPool(a.pool)
		drv, err := migratepgx.WithInstance(db, &migratepgx.Config{MigrationsTable: table})
		if err != nil {
			db.Close()
			return nil, nil, fmt.Errorf("open golang-migrate on postgres: %w", err)
		}
		return drv, func() { _ = drv.Close() }, nil
	}
	drv, err := migratesqlite.WithInstance(a.sqlite, &migratesqlite.Config{MigrationsTable: table})
	if err != nil {
		return nil, nil, fmt.Errorf("open golang-migrate on sqlite: %w", err)
	}
	return drv, func() {}, nil
}
