package main

import (
	"fmt"
	"io/fs"
	"testing"

	"github.com/hookrelay/hookrelay"
	"github.com/hookrelay/hookrelay/internal/testkit/testdb"
)

// TestHookrelayMigrationsCurrent checks that the hookrelay migrations the
// application embeds are, file for file and byte for byte, those
// hookrelay.Migrations returns for each driver: none stale, missing or
// left over.
func TestHookrelayMigrationsCurrent(t *testing.T) {
	t.Parallel()
	for _, driver := range []string{"postgres", "sqlite"} {
		t.Run(driver, func(t *testing.T) {
			t.Parallel()
			schema := ""
			if driver == "postgres" {
				schema = hookrelaySchema
			}
			ms, err := hookrelay.Migrations(driver, schema)
			if err != nil {
				t.Fatal(err)
			}
			want := map[string]string{}
			for _, m := range ms {
				want[m.FileName()] = m.SQL
			}
			dir := "migrations/hookrelay/" + driver
			files, err := fs.ReadDir(migrationFiles, dir)
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range files {
				got, err := fs.ReadFile(migrationFiles, dir+"/"+f.Name())
				if err != nil {
					t.Fatal(err)
				}
				switch sql, ok := want[f.Name()]; {
				case !ok:
					t.Errorf("%s/%s is not one of hookrelay's migrations", dir, f.Name())
				case string(got) != sql:
					t.Errorf("%s/%s differs from hookrelay's migration", dir, f.Name())
				}
				delete(want, f.Name())
			}
			for name := range want {
				t.Errorf("%s/%s is missing", dir, name)
			}
			if t.Failed() {
				t.Log("regenerate them: go generate ./examples/orders")
			}
		})
	}
}

// TestMigrationsKeptApart migrates a database twice, as two starts of the
// application do, and checks that golang-migrate records the
// application's migrations and hookrelay's in separate tables, each at
// the last version of its own set.
func TestMigrationsKeptApart(t *testing.T) {
	t.Parallel()
	for _, driver := range testdb.Drivers() {
		t.Run(driver.Name, func(t *testing.T) {
			t.Parallel()
			a := testApp(t, driver) // migrated once
			if err := a.migrate(quiet); err != nil {
				t.Fatalf("migrate again: %v", err)
			}
			if v, want := a.queryInt(t, `SELECT version FROM schema_migrations`), lastAppVersion(t, driver.Name); v != want {
				t.Errorf("the application's migrations are at version %d, want %d", v, want)
			}
			ms, err := hookrelay.Migrations(driver.Name, "")
			if err != nil {
				t.Fatal(err)
			}
			last := int64(ms[len(ms)-1].Version)
			if v := a.queryInt(t, `SELECT version FROM hookrelay_golang_migrate`); v != last {
				t.Errorf("hookrelay's migrations are at version %d, want %d", v, last)
			}
		})
	}
}

// lastAppVersion returns the version of the application's last migration
// for driver, from its file name.
func lastAppVersion(t *testing.T, driver string) int64 {
	t.Helper()
	files, err := fs.ReadDir(migrationFiles, "migrations/app/"+driver)
	if err != nil {
		t.Fatal(err)
	}
	var last int64
	for _, f := range files {
		var v int64
		if _, err := fmt.Sscanf(f.Name(), "%d_", &v); err != nil {
			t.Fatalf("migration %s: %v", f.Name(), err)
		}
		last = max(last, v)
	}
	return last
}
