package sqlstore

import (
	"fmt"
	"io/fs"
	"strings"
)

// MigrationScript is how a driver's migrations are written for an
// application's own migration tool (see ExportMigrations).
type MigrationScript struct {
	// Head begins every migration: what creates, if missing, the schema
	// and the table of applied migrations.
	Head string
	// Record ends every migration: what records its version (%d) in the
	// table of applied migrations, unless it is there.
	Record string
}

// ExportMigrations returns the migrations of fsys (a driver's embedded
// migrations directory) as an application's migration tool runs them,
// each a file of its own: its tables named where tables keeps them, and,
// around the migration, what makes the store find it applied — so that a
// store opened without migrating sees the database up to date, and one
// that migrates applies nothing twice.
func ExportMigrations(fsys fs.FS, tables Tables, script MigrationScript) ([]Migration, error) {
	ms, err := ReadMigrations(fsys, "migrations")
	if err != nil {
		return nil, err
	}
	for i, m := range ms {
		var b strings.Builder
		fmt.Fprintf(&b, "-- hookrelay's migration %s, its tables named as %s is.\n", m.Name, tables.Name("events"))
		b.WriteString(tables.Rewrite(script.Head))
		b.WriteString(";\n\n")
		b.WriteString(strings.TrimSpace(tables.Rewrite(m.SQL)))
		b.WriteString("\n\n")
		fmt.Fprintf(&b, tables.Rewrite(script.Record), m.Version)
		b.WriteString(";\n")
		ms[i].SQL = b.String()
	}
	return ms, nil
}
