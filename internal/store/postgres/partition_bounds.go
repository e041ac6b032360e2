package postgres

import (
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/hookrelay/hookrelay/internal/store"
	"github.com/hookrelay/hookrelay/internal/store/sqlstore"
)

// A partitioned event log (see EnablePartitions) splits events by RANGE
// (id) and deliveries and attempts by RANGE (event_id), on the same
// bounds. Event ids are ULIDs whose time is the receive time to the
// millisecond (see sqlstore.IDFrom), so the events received in [from, to)
// are exactly those whose id lies in [IDFrom(from), IDFrom(to)): the
// smallest id of a millisecond is its ULID with zero entropy, and a
// period starts on a whole millisecond.

// partitionedTables are the partitioned tables and their partition keys,
// in the order every statement of this file locks them.
var partitionedTables = []struct{ name, key string }{
	{"events", "id"},
	{"deliveries", "event_id"},
	{"attempts", "event_id"},
}

// defaultPartition is the name (the suffix of events_NAME, …) of the
// DEFAULT partitions, which hold an id no range holds: an event whose id
// is not a ULID, or of a receive time no partition was created for (a
// clock far off, maintenance that did not run). Maintenance never drops
// them; row-level pruning deletes their rows.
const defaultPartition = "default"

// partitionRange is the range of ids one partition holds, [from, to);
// from is "" for the partition of everything below to.
type partitionRange struct {
	name     string
	from, to string
}

// periodRange returns the range of the period that starts at start.
func periodRange(p store.PartitionPeriod, start time.Time) partitionRange {
	return partitionRange{name: periodName(start), from: idAt(start), to: idAt(start.Add(p.Length()))}
}

// beforeRange returns the range of everything received before bound: the
// partition a conversion makes of the rows stored so far.
func beforeRange(bound time.Time) partitionRange {
	return partitionRange{name: "before_" + bound.UTC().Format(nameLayout), to: idAt(bound)}
}

// nameLayout is how a partition's name writes a time: UTC, to the minute.
const nameLayout = "20060102_1504"

// periodName returns the name of the partition whose range starts at
// start: p and its UTC start, p20260115_0000 for a day,
// p20260115_1300 for an hour.
func periodName(start time.Time) string { return "p" + start.UTC().Format(nameLayout) }

// idAt returns the smallest id of the events received at or after t, a
// time after the Unix epoch.
func idAt(t time.Time) string {
	id, ok := sqlstore.IDFrom(t)
	if !ok {
		panic(fmt.Sprintf("partition bound %v: before the Unix epoch or past the ULID range", t))
	}
	return id
}

// idTime returns the receive time an id bound stands for: the time of a
// ULID, or the zero time for "" (no bound) or an id that is not a ULID.
func idTime(id string) time.Time {
	u, err := ulid.ParseStrict(id)
	if id == "" || err != nil {
		return time.Time{}
	}
	return ulid.Time(u.Time()).UTC()
}

// boundExpr matches how pg_get_expr writes a range partition's bound:
// FOR VALUES FROM ('…') TO ('…'), MINVALUE for an open lower end.
var boundExpr = regexp.MustCompile(`^FOR VALUES FROM \((MINVALUE|'[^']*')\) TO \('([^']*)'\)$`)

// parseBound returns the range of a partition named name whose bound
// pg_get_expr wrote as expr; ok is false for the DEFAULT partition and
// for a bound hookrelay does not make.
func parseBound(name, expr string) (r partitionRange, ok bool) {
	m := boundExpr.FindStringSubmatch(expr)
	if m == nil {
		return partitionRange{}, false
	}
	r = partitionRange{name: name, to: m[2]}
	if m[1] != "MINVALUE" {
		r.from = strings.Trim(m[1], "'")
	}
	return r, true
}

// partition returns r as the store reports it.
func (r partitionRange) partition() store.Partition {
	return store.Partition{Name: r.name, From: idTime(r.from), To: idTime(r.to)}
}

// values returns r's bound as CREATE TABLE … PARTITION OF takes it.
func (r partitionRange) values() string {
	from := "MINVALUE"
	if r.from != "" {
		from = literal(r.from)
	}
	return fmt.Sprintf("FOR VALUES FROM (%s) TO (%s)", from, literal(r.to))
}

// literal returns s as an SQL string literal. Bounds are ULIDs, whose
// alphabet needs no escaping; quotes are doubled all the same.
func literal(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// wanted returns the ranges maintenance creates at now: one per period
// from the end of the latest range partition, high ("" when there is
// none: from now's period), or from notBefore's period when that is
// later (a period past the retention would be dropped at once), to now
// + p.Lead(). A period that straddles high begins at it, so that ranges
// never overlap whatever period earlier partitions were created with,
// and none is left out between them.
func wanted(p store.PartitionPeriod, now time.Time, high string, notBefore time.Time) []partitionRange {
	from := now
	if high != "" {
		from = idTime(high)
	}
	if notBefore.After(from) {
		from = notBefore
	}
	var rs []partitionRange
	for _, start := range p.Periods(from, now.Add(p.Lead()+time.Nanosecond)) {
		r := periodRange(p, start)
		if high != "" && r.to <= high {
			continue
		}
		if high != "" && r.from < high {
			r = partitionRange{name: periodName(idTime(high)), from: high, to: r.to}
		}
		rs = append(rs, r)
	}
	return rs
}
