package config

import (
	"time"

	"github.com/hookrelay/hookrelay/internal/signature"
)

// SchemeOptions returns the options of the source's signature scheme: what
// the receiver verifies with, what `send` signs with, what the admin API's
// verify re-checks with.
func (s Source) SchemeOptions() signature.Options {
	return signature.Options{
		Scheme:      s.Verify,
		Secrets:     s.Secrets,
		Tolerance:   time.Duration(s.Tolerance),
		AllowSHA1:   s.AllowSHA1,
		HMAC:        signature.HMACOptions(s.HMAC),
		PublicURL:   s.PublicURL,
		PublicKeys:  s.PublicKeys,
		VerifyToken: s.VerifyToken,
		IDHeader:    s.IDHeader,
		IDField:     s.IDField,
		TypeHeader:  s.TypeHeader,
		TypeField:   s.TypeField,
	}
}
