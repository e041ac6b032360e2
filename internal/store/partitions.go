package store

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// ErrNotPartitioned reports a partition maintenance asked of a database
// whose event log is not partitioned.
var ErrNotPartitioned = errors.New("store: the event log is not partitioned")

// PartitionPeriod is how much of the event log one partition holds: the
// events received in one UTC day or one UTC hour, with their deliveries
// and attempts. The zero value is no partitions.
type PartitionPeriod string

// The partition periods.
const (
	PartitionsOff    PartitionPeriod = ""
	PartitionsDaily  PartitionPeriod = "daily"
	PartitionsHourly PartitionPeriod = "hourly"
)

// ParsePartitionPeriod returns the period named s: "daily", "hourly", or
// "" for none.
func ParsePartitionPeriod(s string) (PartitionPeriod, error) {
	switch p := PartitionPeriod(s); p {
	case PartitionsOff, PartitionsDaily, PartitionsHourly:
		return p, nil
	}
	return "", fmt.Errorf("partition period %q: want daily or hourly", s)
}

// Length returns how long one period lasts: 24h, 1h, or 0 for none.
func (p PartitionPeriod) Length() time.Duration {
	switch p {
	case PartitionsDaily:
		return 24 * time.Hour
	case PartitionsHourly:
		return time.Hour
	}
	return 0
}

// Start returns the start of the period that holds t: its UTC day or
// hour. With no period it returns t.
func (p PartitionPeriod) Start(t time.Time) time.Time {
	if p.Length() == 0 {
		return t
	}
	// Truncate counts from the zero time, a UTC midnight: whole days and
	// hours are UTC ones.
	return t.UTC().Truncate(p.Length())
}

// Lead returns how far ahead of the current period the partitions are
// created: two days of daily ones, six hours of hourly ones, so that
// maintenance that fails for a while (the database unreachable, a lock
// not granted) leaves the events of the hours that follow in partitions
// of their own.
func (p PartitionPeriod) Lead() time.Duration {
	switch p {
	case PartitionsDaily:
		return 48 * time.Hour
	case PartitionsHourly:
		return 6 * time.Hour
	}
	return 0
}

// Periods returns the starts of the periods that overlap [from, until).
func (p PartitionPeriod) Periods(from, until time.Time) []time.Time {
	if p.Length() == 0 {
		return nil
	}
	var starts []time.Time
	for t := p.Start(from); t.Before(until); t = t.Add(p.Length()) {
		starts = append(starts, t)
	}
	return starts
}

// Partition is one time range of the event log: the partitions of
// events, deliveries and attempts that hold the events received in [From,
// To), created and dropped together.
type Partition struct {
	// Name is the suffix of its tables' names: events_NAME,
	// deliveries_NAME, attempts_NAME.
	Name string
	// From is the start of its range; zero for the partition that holds
	// everything before To (the table a conversion attached).
	From time.Time
	// To is the end of its range.
	To time.Time
	// Events and Deliveries are its rows: counted when it is dropped,
	// the planner's estimates in a listing.
	Events, Deliveries int64
	// Live counts, by destination and status, the pending, processing
	// and failed deliveries that keep a partition past its retention
	// from being dropped.
	Live map[string]map[DeliveryStatus]int64
	// Locked is, for a partition dropped, how long its drop held the
	// event log's tables locked against every other statement: from the
	// lock's request to the commit.
	Locked time.Duration
}

// PartitionRequest asks for one pass of partition maintenance.
type PartitionRequest struct {
	// Period is the period of the partitions it creates.
	Period PartitionPeriod
	// Now is the current time (the current time when zero).
	Now time.Time
	// DropBefore drops each partition whose range ends at or before it
	// and holds no live delivery; zero drops none.
	DropBefore time.Time
}

// PartitionReport is what a pass of partition maintenance did.
type PartitionReport struct {
	// Created are the partitions it created.
	Created []Partition
	// Dropped are the partitions it dropped, with the rows they held.
	Dropped []Partition
	// Waiting are the partitions past DropBefore it left because they
	// hold live deliveries, with those deliveries' counts.
	Waiting []Partition
}

// Partitions is the partitioning of the event log by time (PostgreSQL):
// events, deliveries and attempts split into one partition per period,
// so that retention drops a period's tables instead of deleting its rows.
// On a driver whose SupportsPartitions is false, Partitioned returns
// false and the other methods fail with ErrNotSupported.
type Partitions interface {
	// SupportsPartitions tells whether the driver can partition the
	// event log: true on PostgreSQL, false on SQLite.
	SupportsPartitions() bool

	// Partitioned tells whether the database's event log is partitioned.
	Partitioned(ctx context.Context) (bool, error)

	// EnablePartitions partitions the event log by period, the rows
	// stored so far becoming one partition of everything received
	// before the end of now's period, and creates the partitions of the
	// periods ahead. It reports its steps to progress (nil for none). It
	// fails when the event log is partitioned already.
	EnablePartitions(ctx context.Context, period PartitionPeriod, now time.Time, progress func(step string)) error

	// MaintainPartitions creates the partitions of the periods from now's
	// to now + Period.Lead(), and drops the partitions that ended at or
	// before req.DropBefore and hold no live delivery, each with its
	// deliveries, attempts, the events' dedupe keys and signature
	// digests, and its deliveries' counts subtracted from Stats and
	// Failures, in one transaction per partition. It fails with
	// ErrNotPartitioned when the event log is not partitioned; a
	// partition it could not drop (a lock not granted in time) fails the
	// pass after the partitions dropped before it.
	MaintainPartitions(ctx context.Context, req PartitionRequest) (PartitionReport, error)

	// ListPartitions returns the partitions, oldest first, with the
	// planner's estimates of their rows; none when the event log is not
	// partitioned.
	ListPartitions(ctx context.Context) ([]Partition, error)
}
