package sqlstore

import (
	"fmt"
	"io/fs"
	"path"
	"strconv"
	"strings"
)

// Migration is one numbered file of a driver's migrations.
type Migration struct {
	// Version is the file's number, recorded in schema_migrations.
	Version int
	// Name is the file's name, NNNN_what.sql.
	Name string
	// SQL is the file's text.
	SQL string
}

// ReadMigrations returns the migrations in directory dir of fsys (a
// driver's embedded files), in the order of their names, NNNN_what.sql. A
// name without a version number is an error.
func ReadMigrations(fsys fs.FS, dir string) ([]Migration, error) {
	entries, err := fs.ReadDir(fsys, dir) // sorted by name
	if err != nil {
		return nil, fmt.Errorf("read migrations: %w", err)
	}
	ms := make([]Migration, 0, len(entries))
	for _, e := range entries {
		num, _, _ := strings.Cut(e.Name(), "_")
		v, err := strconv.Atoi(num)
		if err != nil {
			return nil, fmt.Errorf("read migrations: %s has no version number", e.Name())
		}
		b, err := fs.ReadFile(fsys, path.Join(dir, e.Name()))
		if err != nil {
			return nil, fmt.Errorf("read migrations: %w", err)
		}
		ms = append(ms, Migration{Version: v, Name: e.Name(), SQL: string(b)})
	}
	return ms, nil
}

// Pending returns the names of the migrations of ms whose versions done
// does not hold, in order; never nil.
func Pending(ms []Migration, done map[int]bool) []string {
	out := []string{}
	for _, m := range ms {
		if !done[m.Version] {
			out = append(out, m.Name)
		}
	}
	return out
}
