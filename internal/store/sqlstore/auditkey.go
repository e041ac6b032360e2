package sqlstore

import (
	"crypto/rand"
	"fmt"

	"github.com/hookrelay/hookrelay/internal/store"
)

// AuditKeyName is the audit key's name in the instance_keys table.
const AuditKeyName = "audit"

// NewAuditKey returns store.AuditKeySize random bytes, a candidate audit
// key: the driver keeps it only when the database has none yet.
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
