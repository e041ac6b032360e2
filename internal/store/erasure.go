package store

import (
	"context"
	"time"
)

// MaxPurgeBatch bounds the events one PurgeEvents call erases; a caller
// with more splits them.
const MaxPurgeBatch = 500

// Tombstone is what remains known of a purged event besides its row's ids,
// source, type and times: when its payload was erased, by whom and why.
type Tombstone struct {
	EventID  string
	PurgedAt time.Time
	// Actor names who purged it (the token's name).
	Actor  string
	Reason string
}

// PurgeRequest erases the payload of events.
type PurgeRequest struct {
	// IDs are hookrelay event ids, at most MaxPurgeBatch.
	IDs    []string
	Actor  string
	Reason string
	Now    time.Time
}

// PurgeResult tells what one PurgeEvents call erased.
type PurgeResult struct {
	// Purged lists the ids of the events this call purged: neither an
	// unknown id nor one purged before is among them.
	Purged []string
	// Ended counts the live deliveries (pending, failed or processing)
	// of those events that the call made purged.
	Ended int64
}

// PurgeSelector is what a purge selected, as its audit row records it: the
// ids, a source's provider event id, or the events whose JSON body has a
// value at a path, in a window. The value itself is never recorded, only
// a keyed hash of it, so that the audit log holds no payload byte and a
// reader of it cannot test guesses of a low-entropy value (an e-mail
// address) against it.
type PurgeSelector struct {
	IDs             []string
	Source          string
	ProviderEventID string
	Path            string
	// ValueHMAC is the hex HMAC-SHA-256 of the value looked for at Path,
	// under the database's AuditKey.
	ValueHMAC    string
	Since, Until time.Time
}

// PurgeAudit is the audit row of one purge, dry runs included.
type PurgeAudit struct {
	Actor    string
	Selector PurgeSelector
	Reason   string
	// Matched counts the events selected that were not purged already;
	// Purged those purged (0 on a dry run).
	Matched, Purged int64
	DryRun          bool
	Now             time.Time
}

// Erasure erases the payload of events on request, keeping a tombstone.
type Erasure interface {
	// PurgeEvents erases, in one transaction, the payload of the events
	// req.IDs that exist and are not purged yet: their body becomes
	// empty and their headers none (GetEvent and EventBodies then return
	// an empty body), the response snippets of their attempts and the
	// ordering keys of their deliveries are cleared, and each of their
	// deliveries that is pending, failed or processing becomes
	// StatusPurged, final, its lease cleared (a holder's outcome is then
	// not recorded: ErrLeaseLost). The row keeps its ids, source, type
	// and times, and the tombstone records req.Now, req.Actor and
	// req.Reason. Replay never re-arms a purged delivery and
	// BackfillCandidates and CreateDeliveries pass purged events by, so
	// a purged event is never delivered again; an attempt already under
	// way when the purge commits may finish. More than MaxPurgeBatch ids
	// is an error; ErrUnavailable when the database cannot be written.
	PurgeEvents(ctx context.Context, req PurgeRequest) (PurgeResult, error)

	// Tombstones returns the tombstones of those of the events ids that
	// were purged, by id; an event not purged, or unknown, has none.
	Tombstones(ctx context.Context, ids []string) (map[string]Tombstone, error)

	// RecordPurge writes the audit row of a purge (kind AuditPurge).
	RecordPurge(ctx context.Context, a PurgeAudit) error

	// ClearErased makes the bytes that purges erased leave the database's
	// files where the driver can do so without stopping ingest, and
	// returns the statement an operator runs for the rest, or "" when
	// nothing remains to be done. SQLite zeroes what a purge deletes as
	// it deletes it (secure_delete); ClearErased copies the write-ahead
	// log into the database and truncates it, since the log still holds
	// the earlier versions of the pages. PostgreSQL leaves dead row
	// versions, and the holes a VACUUM makes of them, in its table and
	// index pages: only rewriting the tables removes them, which locks
	// them while it runs, so the statement is returned, not run.
	ClearErased(ctx context.Context) (followUp string, err error)

	// AuditKey returns the database's key of the audit log's keyed
	// hashes: 32 random bytes made the first time it is asked for, the
	// same ever after, for every node on the database. No API returns
	// it.
	AuditKey(ctx context.Context) ([]byte, error)
}

// AuditKeySize is the length of AuditKey's key.
const AuditKeySize = 32
