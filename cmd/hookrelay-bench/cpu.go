package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/hookrelay/hookrelay/internal/testkit/proccpu"
)

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
	postgres    proccpu.Postgres // the first reading of the PostgreSQL database measured ("" for none)
	pids        []int
	ok          bool
}

// startCPU takes the first reading: the machine's, this process's, that
// of the relays with the given pids and that of the PostgreSQL server for
// database ("" when the relays use none: its own processes alone).
func startCPU(pids []int, database string) cpuMeter {
	m := cpuMeter{at: time.Now(), pids: pids}
	var err error
	if m.busy, m.total, err = machineTicks(); err != nil {
		return cpuMeter{}
	}
	if m.relays, m.self, err = processTicks(pids); err != nil {
		return cpuMeter{}
	}
	m.postgres = proccpu.ReadPostgres(database)
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
	pg := m.postgres.Since()
	secs := time.Since(m.at).Seconds()
	cores := func(ticks int64) float64 { return float64(ticks) / proccpu.ClockTicks / secs }
	u := cpuUse{Cores: cpuCount(), Busy: cores(busy - m.busy), Relays: cores(relays - m.relays), Bench: cores(self - m.self), Postgres: pg.Seconds() / secs, Secs: secs}
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
		n, err := proccpu.Ticks(strconv.Itoa(pid))
		if err != nil {
			return 0, 0, err
		}
		relays += n
	}
	self, err = proccpu.Ticks("self")
	return relays, self, err
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
