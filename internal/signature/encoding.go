package signature

import (
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"strings"
)

// encoding is how a digest is written in a header.
type encoding uint8

const (
	hexEncoding encoding = iota
	base64Encoding
)

func encodingByName(name string) (encoding, error) {
	switch name {
	case "hex", "":
		return hexEncoding, nil
	case "base64":
		return base64Encoding, nil
	}
	return 0, fmt.Errorf("unknown hmac encoding %q (want hex or base64)", name)
}

// strictBase64 rejects non-canonical padding bits, so that exactly one
// header text verifies for a digest.
var strictBase64 = base64.StdEncoding.Strict()

// maxEncoded is the longest encoded digest: the hex of a SHA-512.
const maxEncoded = 2 * sha512.Size

// sigBuf receives a decoded signature; base64 decoding needs up to two
// bytes of room past the digest.
type sigBuf [sha512.Size + 3]byte

// decode decodes an encoded signature into buf. It reports false for text
// that is not a canonical encoding or is longer than any digest; such a
// signature matches nothing.
func (e encoding) decode(buf *sigBuf, s string) ([]byte, bool) {
	if len(s) > maxEncoded {
		return nil, false
	}
	// Copy to a fixed array so that decoding does not allocate.
	var src [maxEncoded]byte
	n := copy(src[:], s)
	switch e {
	case hexEncoding:
		m, err := hex.Decode(buf[:], src[:n])
		return buf[:m], err == nil
	default:
		// The decoder skips CR and LF; a header never carries them, so
		// their presence means tampering.
		if strings.ContainsAny(s, "\r\n") {
			return nil, false
		}
		if strictBase64.DecodedLen(n) > len(buf) {
			return nil, false
		}
		m, err := strictBase64.Decode(buf[:], src[:n])
		return buf[:m], err == nil
	}
}

func (e encoding) encode(sum []byte) string {
	if e == hexEncoding {
		return hex.EncodeToString(sum)
	}
	return base64.StdEncoding.EncodeToString(sum)
}
