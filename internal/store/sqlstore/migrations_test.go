package sqlstore

import (
	"io/fs"
	"reflect"
	"testing"
	"testing/fstest"
)

func TestReadMigrations(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		files   fstest.MapFS
		want    []Migration
		wantErr bool
	}{
		{"in order of names", fstest.MapFS{
			"migrations/0010_later.sql": {Data: []byte("C")},
			"migrations/0002_queue.sql": {Data: []byte("B")},
			"migrations/0001_init.sql":  {Data: []byte("A")},
		}, []Migration{{1, "0001_init.sql", "A"}, {2, "0002_queue.sql", "B"}, {10, "0010_later.sql", "C"}}, false},
		{"none", fstest.MapFS{"migrations": {Mode: fs.ModeDir | 0o755}}, []Migration{}, false},
		{"no version number", fstest.MapFS{"migrations/init.sql": {Data: []byte("A")}}, nil, true},
		{"no directory", fstest.MapFS{}, nil, true},
	} {
		got, err := ReadMigrations(tc.files, "migrations")
		if (err != nil) != tc.wantErr || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: ReadMigrations = %+v, %v; want %+v, error %t", tc.name, got, err, tc.want, tc.wantErr)
		}
	}
}
