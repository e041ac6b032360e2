package receiver

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/hookrelay/hookrelay/internal/signature"
)

// maxIdentityLen bounds a provider event id and an event type: real ones are
// a few dozen bytes, and both are indexed.
const maxIdentityLen = 512

// checkIdentity refuses a provider id that the event log could not hold as
// text (invalid UTF-8, NUL, absurd length) — storing it would fail the
// whole group commit — and cleans the type the same way, since a type is
// descriptive and not the dedupe key.
func checkIdentity(id *signature.Identity) error {
	if !storableText(id.ID) {
		return fmt.Errorf("provider event id is not storable text: %w", signature.ErrMissingIdentity)
	}
	if !storableText(id.Type) {
		t := strings.ToValidUTF8(id.Type, "\uFFFD")
		t = strings.ReplaceAll(t, "\x00", "")
		if len(t) > maxIdentityLen {
			t = strings.ToValidUTF8(t[:maxIdentityLen], "")
		}
		id.Type = t
	}
	return nil
}

func storableText(s string) bool {
	return len(s) <= maxIdentityLen && utf8.ValidString(s) && !strings.ContainsRune(s, 0)
}
