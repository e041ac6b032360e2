package receiver

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
)

// errReplayedSignature reports a new delivery id on a body and signature
// that the source already stored under another delivery id: for a scheme
// that signs the body alone, the mark of a captured request posted again.
// The store tells it (store.IngestReplayedSignature), in the transaction
// that would have stored the event, for every relay sharing the database.
var errReplayedSignature = errors.New("body and signature already stored under another delivery id")

// signatureDigest returns the SHA-256 of a decoded signature and the
// content it signs, with the signature's length first so that no two
// pairs share one input. Decoded, a signature has one spelling: its
// letter case, padding or place among others in a header cannot make a
// re-post look new.
func signatureDigest(mac, signed []byte) []byte {
	h := sha256.New()
	var n [8]byte
	binary.BigEndian.PutUint64(n[:], uint64(len(mac)))
	h.Write(n[:])
	h.Write(mac)
	h.Write(signed)
	return h.Sum(nil)
}
