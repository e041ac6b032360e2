// Package proccpu reads the CPU time of processes from /proc: one process
// by its pid, and the PostgreSQL server's processes that work for one
// database. The benchmarks use it to tell the relay's CPU time from the
// database server's.
package proccpu

import (
	"fmt"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"
)

// ClockTicks is the kernel's USER_HZ, the unit of the CPU times in
// /proc/stat and /proc/<pid>/stat: 100 on every Linux build that matters
// here, and not readable without cgo.
const ClockTicks = 100

// Ticks reads utime plus stime, in clock ticks, from /proc/<pid>/stat
// ("self" for this process), whose second field, the command in
// parentheses, may hold spaces.
func Ticks(pid string) (int64, error) {
	b, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return 0, fmt.Errorf("read process CPU time: %w", err)
	}
	s := string(b)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	// After the command: state is field 3, utime 14 and stime 15.
	if len(fields) < 13 {
		return 0, fmt.Errorf("read process CPU time: short /proc/%s/stat", pid)
	}
	var sum int64
	for _, f := range fields[11:13] {
		n, err := strconv.ParseInt(f, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("read process CPU time: %w", err)
		}
		sum += n
	}
	return sum, nil
}

// Postgres is a reading of the CPU ticks, by pid, of the PostgreSQL
// server's processes that work for one database.
type Postgres struct {
	database string
	ticks    map[int]int64
}

// ReadPostgres reads the CPU ticks of the PostgreSQL server's processes
// that work for database: its backends, by the process title the server
// sets ("postgres: 15/main: user database host(port) state", or
// "autovacuum worker database"), and the processes whose title names no
// database (WAL writer, checkpointer, background writer, launchers),
// which work for every database. Backends of other databases are left
// out — on a shared machine other work runs on the same server — and so
// are processes that cannot be read.
func ReadPostgres(database string) Postgres {
	r := Postgres{database: database, ticks: map[int]int64{}}
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return r
	}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		comm, err := os.ReadFile("/proc/" + e.Name() + "/comm")
		if err != nil || strings.TrimSpace(string(comm)) != "postgres" {
			continue
		}
		title, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err != nil {
			continue
		}
		if db, ok := TitleDatabase(strings.ReplaceAll(string(title), "\x00", " ")); ok && db != database {
			continue
		}
		if n, err := Ticks(e.Name()); err == nil {
			r.ticks[pid] = n
		}
	}
	return r
}

// Since returns the CPU time the same processes spent since r was read:
// a process started meanwhile counts whole, and one that exited
// meanwhile is missed, so the server's pool must outlive the
// measurement.
func (r Postgres) Since() time.Duration {
	var n int64
	for pid, t := range ReadPostgres(r.database).ticks {
		n += t - r.ticks[pid]
	}
	return time.Duration(n) * time.Second / ClockTicks
}

// URLDatabase returns the database a postgres:// URL names, and "" for
// any other URL (a SQLite file).
func URLDatabase(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
		return ""
	}
	return strings.TrimPrefix(u.Path, "/")
}

// TitleDatabase returns the database a PostgreSQL process title names,
// with ok false for a process that serves no one database.
func TitleDatabase(title string) (database string, ok bool) {
	f := strings.Fields(title)
	for i, w := range f {
		isClient := w == "[local]" || (strings.HasSuffix(w, ")") && strings.Contains(w, "("))
		if isClient && i >= 2 {
			return f[i-1], true
		}
		if w == "worker" && i >= 1 && f[i-1] == "autovacuum" && i+1 < len(f) {
			return f[i+1], true
		}
	}
	return "", false
}
