package sqlstore

import (
	"context"
	"crypto/rand"
	"fmt"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
)

// AuditKeyName is the audit key's name in the instance_keys table.
const AuditKeyName = "audit"

const (
	// insertAuditKey makes the audit key (its name, its bytes, the time)
	// unless it exists; selectAuditKey reads the one that stands.
	insertAuditKey = `INSERT INTO hookrelay.instance_keys (name, key, created_at) VALUES (?, ?, ?) ON CONFLICT (name) DO NOTHING`
	selectAuditKey = `SELECT key FROM hookrelay.instance_keys WHERE name = ?`
)

// AuditKey returns the database's audit key, made by the first caller:
// concurrent first callers all get the one that was stored.
func (o *Ops) AuditKey(ctx context.Context) ([]byte, error) {
	release, err := o.enter()
	if err != nil {
		return nil, fmt.Errorf("read audit key: %w", err)
	}
	defer release()
	if _, err := o.b.Write.Exec(ctx, insertAuditKey, AuditKeyName, NewAuditKey(), o.b.Dialect.Time(time.Now())); err != nil {
		return nil, o.fail(ctx, "make audit key", err)
	}
	var key []byte
	if err := o.b.Write.QueryRow(ctx, selectAuditKey, AuditKeyName).Scan(&key); err != nil {
		return nil, o.fail(ctx, "read audit key", err)
	}
	return CheckAuditKey(key)
}

// NewAuditKey returns store.AuditKeySize random bytes, a candidate audit
// key: AuditKey keeps it only when the database has none yet.
func NewAuditKey() []byte {
	key := make([]byte, store.AuditKeySize)
	_, _ = rand.Read(key) // never fails on a supported platform
	return key
}

// CheckAuditKey refuses a stored key of the wrong length: one changed by
// hand would make the keyed hashes of the audit log stop matching.
func CheckAuditKey(key []byte) ([]byte, error) {
	if len(key) != store.AuditKeySize {
		return nil, fmt.Errorf("audit key is %d bytes, want %d", len(key), store.AuditKeySize)
	}
	return key, nil
}
