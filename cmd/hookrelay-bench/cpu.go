package main

import (
	"fmt"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"
)

// clockTicks is the kernel's USER_HZ, the unit of the CPU times in
// /proc/stat and /proc/<pid>/stat: 100 on every Linux build that matters
// here, and not readable without cgo.
const clockTicks = 100

// cpuUse is where the machine's CPU time went over one measurement, in
// cores: 1.5 is one and a half cores busy on average.
type cpuUse struct {
	// Cores is how many the machine has; Busy how many were busy, all
	// processes together.
	Cores int
	Busy  float64
	// Relays is the share of the relay processes measured, Bench that of
	// this process (the destination or the load generator), Postgres that
	// of the PostgreSQL server's work for the measured database: the
	// backends connected to it and the server's own processes (WAL
	// writer, checkpointer, background writer, launchers), which work
	// for every database; backends that exit meanwhile are missed. Other
	// is the rest of Busy: anything else the machine runs, the backends
	// of the server's other databases among it.
	Relays, Bench, Postgres, Other float64
	// Secs is how long the measurement lasted.
	Secs float64
}

// perItem is the CPU time, in microseconds, that cores busy over the
// measurement spent on each of n items.
func (u cpuUse) perItem(cores float64, n int64) float64 {
	if n <= 0 {
		return 0
	}
	return cores * u.Secs / float64(n) * 1e6
}

// cpuMeter reads CPU time at the start of a measurement and, through
// stop, at its end. Zero value: no /proc, and stop returns ok false.
type cpuMeter struct {
	at          time.Time
	busy, total int64
	relays      int64
	self        int64
	postgres    map[int]int64 // ticks by pid
	database    string        // the PostgreSQL database measured, "" for none
	pids        []int
	ok          bool
}

// startCPU takes the first reading: the machine's, this process's, that
// of the relays with the given pids and that of the PostgreSQL server for
// database ("" when the relays use none: its own processes alone).
func startCPU(pids []int, database string) cpuMeter {
	m := cpuMeter{at: time.Now(), pids: pids, database: database}
	var err error
	if m.busy, m.total, err = machineTicks(); err != nil {
		return cpuMeter{}
	}
	if m.relays, m.self, err = processTicks(pids); err != nil {
		return cpuMeter{}
	}
	m.postgres = postgresTicks(database)
	m.ok = true
	return m
}

// stop takes the second reading and returns the use in between; the
// relays must still be running.
func (m cpuMeter) stop() (cpuUse, bool) {
	if !m.ok {
		return cpuUse{}, false
	}
	busy, total, err := machineTicks()
	if err != nil {
		return cpuUse{}, false
	}
	relays, self, err := processTicks(m.pids)
	if err != nil {
		return cpuUse{}, false
	}
	var pg int64
	for pid, n := range postgresTicks(m.database) {
		pg += n - m.postgres[pid] // a backend started meanwhile counts whole
	}
	secs := time.Since(m.at).Seconds()
	cores := func(ticks int64) float64 { return float64(ticks) / clockTicks / secs }
	u := cpuUse{Cores: cpuCount(), Busy: cores(busy - m.busy), Relays: cores(relays - m.relays), Bench: cores(self - m.self), Postgres: cores(pg), Secs: secs}
	u.Other = max(u.Busy-u.Relays-u.Bench-u.Postgres, 0)
	return u, total > m.total
}

// machineTicks returns the busy and total ticks of every core from the
// first line of /proc/stat; idle and iowait are not busy.
func machineTicks() (busy, total int64, err error) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, 0, fmt.Errorf("read /proc/stat: %w", err)
	}
	line, _, _ := strings.Cut(string(b), "\n")
	fields := strings.Fields(line)
	if len(fields) < 6 || fields[0] != "cpu" {
		return 0, 0, fmt.Errorf("read /proc/stat: unexpected first line %q", line)
	}
	for i, f := range fields[1:] {
		n, err := strconv.ParseInt(f, 10, 64)
		if err != nil {
			return 0, 0, fmt.Errorf("read /proc/stat: %w", err)
		}
		total += n
		if i != 3 && i != 4 { // idle, iowait
			busy += n
		}
	}
	return busy, total, nil
}

// processTicks returns the user and system ticks of the pids, summed, and
// of this process.
func processTicks(pids []int) (relays, self int64, err error) {
	for _, pid := range pids {
		n, err := pidTicks(strconv.Itoa(pid))
		if err != nil {
			return 0, 0, err
		}
		relays += n
	}
	self, err = pidTicks("self")
	return relays, self, err
}

// postgresTicks returns the CPU ticks, by pid, of the PostgreSQL
// server's processes that work for database: its backends, by the
// process title the server sets ("postgres: 15/main: user database
// host(port) state", or "autovacuum worker database"), and the processes
// whose title names no database. Backends of other databases are left
// out — on a shared machine other work runs on the same server — and so
// are processes that cannot be read.
func postgresTicks(database string) map[int]int64 {
	out := map[int]int64{}
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return out
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
		if db, ok := titleDatabase(strings.ReplaceAll(string(title), "\x00", " ")); ok && db != database {
			continue
		}
		if n, err := pidTicks(e.Name()); err == nil {
			out[pid] = n
		}
	}
	return out
}

// urlDatabase returns the database a postgres:// URL names, and "" for
// any other URL (a SQLite file).
func urlDatabase(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
		return ""
	}
	return strings.TrimPrefix(u.Path, "/")
}

// titleDatabase returns the database a PostgreSQL process title names,
// with ok false for a process that serves no one database.
func titleDatabase(title string) (database string, ok bool) {
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

// pidTicks reads utime plus stime from /proc/<pid>/stat, whose second
// field, the command in parentheses, may hold spaces.
func pidTicks(pid string) (int64, error) {
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

// cpuCount is how many cores /proc/stat lists.
func cpuCount() int {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0
	}
	n := 0
	for line := range strings.SplitSeq(string(b), "\n") {
		if strings.HasPrefix(line, "cpu") && !strings.HasPrefix(line, "cpu ") {
			n++
		}
	}
	return n
}
