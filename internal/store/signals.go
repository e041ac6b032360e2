package store

import (
	"context"
	"strconv"
	"time"
)

// SlotCount is how many events one secret of a source verified, counted
// in memory by a receiver, and the time of the latest.
type SlotCount struct {
	Source string
	// Secret is the secret's fingerprint (config.SecretFingerprint), or
	// LegacySlot(n) for the counts kept by slot number before 0034.
	Secret   string
	Verified int64
	Last     time.Time
}

// LegacySlot is the Secret of the counts an earlier version kept by slot
// number, slot n of the source's list then: "slot:n".
func LegacySlot(n int) string { return "slot:" + strconv.Itoa(n) }

// SlotUsage is what the store knows of one secret's use.
type SlotUsage struct {
	Source string
	Secret string
	// LastVerified is the latest time the slot verified an event.
	LastVerified time.Time
	// Verified is how many events it verified since the time asked for.
	Verified int64
}

// SlotUsageKeep is how long the hourly counts of secret-slot use are kept:
// a slot unused for longer is reported as never used.
const SlotUsageKeep = 30 * 24 * time.Hour

// EventTimes is the provider's time and the receive time of one event.
type EventTimes struct {
	OccurredAt time.Time
	ReceivedAt time.Time
}

// Signals is the store's side of rotation status and provider lag: what an
// operator needs to finish a secret rotation and to tell a provider's
// backlog from a clock problem.
type Signals interface {
	// CountSlots adds counts to each source's and secret's hour (the hour
	// of Last, UTC), keeps the latest Last, and deletes hours older than
	// SlotUsageKeep before now. counts holds at most one entry per source
	// and secret. A store that cannot write is ErrUnavailable.
	CountSlots(ctx context.Context, counts []SlotCount, now time.Time) error

	// SlotUsage returns every (source, secret) with a kept count, ordered
	// by source then secret: its latest verification, and how many events
	// it verified in the hours that start at or after since's hour.
	SlotUsage(ctx context.Context, since time.Time) ([]SlotUsage, error)

	// RecentEventTimes looks at the newest limit events of source and
	// returns the times of those that carry a provider time, newest first.
	// It reads at most limit rows whatever the source's scheme.
	RecentEventTimes(ctx context.Context, source string, limit int) ([]EventTimes, error)
}

// MigrationStatus tells what `hookrelay doctor` needs to know of a
// database's schema without changing it.
type MigrationStatus interface {
	// PendingMigrations returns the names of the embedded migrations the
	// database has not applied, in order: all of them for an empty
	// database, none once Migrate has run. It writes nothing.
	PendingMigrations(ctx context.Context) ([]string, error)
}
