package proccpu

import "testing"

func TestTitleDatabase(t *testing.T) {
	for _, c := range []struct {
		title, db string
		ok        bool
	}{
		{"postgres: 15/main: postgres hr_bench 127.0.0.1(35912) idle", "hr_bench", true},
		{"postgres: 15/main: app shop [local] SELECT waiting", "shop", true},
		{"postgres: 15/main: autovacuum worker hr_bench", "hr_bench", true},
		{"postgres: 15/main: walwriter", "", false},
		{"postgres: 15/main: background writer", "", false},
		{"/usr/lib/postgresql/15/bin/postgres -D /var/lib/postgresql/15/main -c config_file=/etc/postgresql/15/main/postgresql.conf", "", false},
	} {
		if db, ok := TitleDatabase(c.title); db != c.db || ok != c.ok {
			t.Errorf("TitleDatabase(%q) = %q, %v; want %q, %v", c.title, db, ok, c.db, c.ok)
		}
	}
	if got := URLDatabase("postgres://postgres@127.0.0.1:5432/hr_bench?search_path=s1&sslmode=disable"); got != "hr_bench" {
		t.Errorf("URLDatabase = %q, want hr_bench", got)
	}
	if got := URLDatabase("sqlite:/tmp/x.db"); got != "" {
		t.Errorf("URLDatabase of a SQLite URL = %q, want none", got)
	}
}

func TestTicksOfSelf(t *testing.T) {
	n, err := Ticks("self")
	if err != nil {
		t.Fatalf("Ticks(self): %v", err)
	}
	if n < 0 {
		t.Fatalf("Ticks(self) = %d", n)
	}
}
