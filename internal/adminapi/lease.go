package adminapi

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"strings"
	"time"
)

// lease is what a pull consumer's lease token carries: everything an ack
// needs to record the outcome without reading the delivery back, namely its
// destination (whose consumer may ack, and whose retry policy applies), the
// attempt number and when it was claimed. The token is sealed with an HMAC
// keyed by the destination's secret, which every relay sharing the config
// knows, so a consumer cannot alter it and any node can check it.
type lease struct {
	DeliveryID  int64  `json:"d"`
	Destination string `json:"n"`
	EventID     string `json:"e"`
	Attempt     int    `json:"a"`
	ClaimedAt   int64  `json:"c"` // unix milliseconds
	StoreToken  string `json:"t"` // the store's own lease token
}

var b64 = base64.RawURLEncoding

// seal returns the token of l: its JSON and its HMAC, base64url, joined by
// a dot.
func (l lease) seal(secret string) string {
	payload, _ := json.Marshal(l)
	p := b64.EncodeToString(payload)
	return p + "." + b64.EncodeToString(leaseMAC(secret, p))
}

// openLease reads a token without checking its seal, which needs the
// destination's secret named inside it; check then with verify.
func openLease(token string) (l lease, payload string, mac []byte, ok bool) {
	p, m, found := strings.Cut(token, ".")
	if !found {
		return l, "", nil, false
	}
	raw, err := b64.DecodeString(p)
	if err != nil {
		return l, "", nil, false
	}
	if mac, err = b64.DecodeString(m); err != nil {
		return l, "", nil, false
	}
	if json.Unmarshal(raw, &l) != nil || l.Destination == "" || l.StoreToken == "" {
		return l, "", nil, false
	}
	return l, p, mac, true
}

// verifyLease reports whether mac seals payload under secret.
func verifyLease(secret, payload string, mac []byte) bool {
	return hmac.Equal(mac, leaseMAC(secret, payload))
}

func leaseMAC(secret, payload string) []byte {
	m := hmac.New(sha256.New, []byte("hookrelay lease\x00"+secret))
	m.Write([]byte(payload))
	return m.Sum(nil)
}

func (l lease) claimedAt() time.Time { return time.UnixMilli(l.ClaimedAt).UTC() }
