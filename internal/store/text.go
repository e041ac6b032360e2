package store

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// ErrInvalid reports a record holding a value that no driver can keep as
// it is: a provider event id or source name that is not UTF-8, holds NUL
// or is longer than MaxIdentityLen. The caller refuses the request (400);
// nothing of the batch was written.
var ErrInvalid = errors.New("store: invalid value")

// Bounds of the text values derived from a request. PostgreSQL's text
// holds neither NUL nor invalid UTF-8 and its index entries are limited to
// about 2.7 kB, while SQLite stores any bytes; every driver therefore takes
// the values in the forms below, so that both accept the same events.
const (
	// MaxIdentityLen bounds a provider event id, a source name and an
	// event type: real ones are a few dozen bytes, and all three are
	// indexed.
	MaxIdentityLen = 512
	// MaxOrderingKeyLen is the longest ordering key kept as it is; a
	// longer one is kept as its hash (see OrderingKey).
	MaxOrderingKeyLen = 256
	// MaxContentTypeLen bounds a stored Content-Type.
	MaxContentTypeLen = 1024
)

// orderingKeyHash starts an ordering key kept as a hash.
const orderingKeyHash = "sha256:"

// StorableText reports whether s is kept as it is: UTF-8, no NUL, at most
// max bytes.
func StorableText(s string, max int) bool {
	return len(s) <= max && utf8.ValidString(s) && !strings.ContainsRune(s, 0)
}

// CleanText returns s in a form every driver keeps: invalid UTF-8 replaced
// by U+FFFD, NUL removed, cut to at most max bytes on a character
// boundary. It is for descriptive values (a type, a Content-Type, an
// error), never for a key that tells two records apart.
func CleanText(s string, max int) string {
	if StorableText(s, max) {
		return s
	}
	s = strings.ReplaceAll(strings.ToValidUTF8(s, "\uFFFD"), "\x00", "")
	if len(s) > max {
		s = strings.ToValidUTF8(s[:max], "")
	}
	return s
}

// OrderingKey returns the form in which an ordering key value is stored:
// the value itself when it is storable text of at most MaxOrderingKeyLen
// bytes that does not start with "sha256:", else "sha256:" and the hex
// SHA-256 of its bytes. Two stored keys are equal exactly when the values
// are (up to hash collisions), which is all ordering needs.
func OrderingKey(v string) string {
	if StorableText(v, MaxOrderingKeyLen) && !strings.HasPrefix(v, orderingKeyHash) {
		return v
	}
	sum := sha256.Sum256([]byte(v))
	return orderingKeyHash + hex.EncodeToString(sum[:])
}

// Storable returns the items in the form every driver keeps (see
// CleanText and OrderingKey), or an error wrapping ErrInvalid naming the
// first item whose provider event id or source cannot be kept as it is, or
// whose delivery has a Lease without a token or an end.
// Items that need no change are returned as they are; the caller's items
// are never modified.
func Storable(items []IngestItem) ([]IngestItem, error) {
	out, copied := items, false
	for i := range items {
		it, changed, err := storableItem(items[i])
		if err != nil {
			return nil, err
		}
		if !changed {
			continue
		}
		if !copied {
			out, copied = append([]IngestItem(nil), items...), true
		}
		out[i] = it
	}
	return out, nil
}

func storableItem(it IngestItem) (IngestItem, bool, error) {
	e := &it.Event
	if !StorableText(e.ProviderEventID, MaxIdentityLen) || !StorableText(e.Source, MaxIdentityLen) {
		return it, false, fmt.Errorf("event %s: provider event id or source is not text of at most %d bytes: %w", e.ID, MaxIdentityLen, ErrInvalid)
	}
	changed := false
	if t := CleanText(e.Type, MaxIdentityLen); t != e.Type {
		e.Type, changed = t, true
	}
	if ct := CleanText(e.ContentType, MaxContentTypeLen); ct != e.ContentType {
		e.ContentType, changed = ct, true
	}
	copied := false
	for j, d := range it.Deliveries {
		if l := d.Lease; l != nil && (l.Token == "" || l.Until.IsZero()) {
			return it, false, fmt.Errorf("event %s: delivery to %s: a lease needs a token and an end: %w", e.ID, d.Destination, ErrInvalid)
		}
		if k := OrderingKey(d.OrderingKey); k != d.OrderingKey {
			if !copied {
				it.Deliveries, copied = append([]NewDelivery(nil), it.Deliveries...), true
			}
			it.Deliveries[j].OrderingKey, changed = k, true
		}
	}
	return it, changed, nil
}
