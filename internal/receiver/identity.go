package receiver

import (
	"fmt"

	"github.com/hookrelay/hookrelay/internal/signature"
	"github.com/hookrelay/hookrelay/internal/store"
)

// checkIdentity refuses a provider id that the event log could not hold as
// it is (invalid UTF-8, NUL, absurd length): changing it could merge two
// events into one, and storing it would fail the whole group commit. It
// cleans the type as the store would, since a type is descriptive and not
// the dedupe key.
func checkIdentity(id *signature.Identity) error {
	if !store.StorableText(id.ID, store.MaxIdentityLen) {
		return fmt.Errorf("provider event id is not storable text: %w", signature.ErrMissingIdentity)
	}
	id.Type = store.CleanText(id.Type, store.MaxIdentityLen)
	return nil
}
