// Package signature verifies inbound webhook signatures over the exact raw
// body, reads the provider's event identity from a verified request, and
// signs messages the way each provider would.
//
// Every scheme accepts several secrets for rotation. A secret's slot is its
// index in Options.Secrets; an empty entry is inactive but keeps its number.
// The signature is always checked before the timestamp, so that a forged
// request is told apart (ErrMismatch) from a genuine but stale one
// (ErrStale).
package signature

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
)

// Errors returned by Scheme.Verify and Scheme.Identify. Each maps to one
// HTTP status in the receiver.
var (
	// ErrNoSecret reports that the source has no active (non-empty) secret.
	ErrNoSecret = errors.New("signature: no active secret configured")
	// ErrMissingSignature reports that a signature, timestamp or signed id
	// header is absent or empty.
	ErrMissingSignature = errors.New("signature: missing signature header")
	// ErrMalformedSignature reports a signature header that is present but
	// cannot be parsed: a missing prefix, field or version, or a timestamp
	// that is not a number.
	ErrMalformedSignature = errors.New("signature: malformed signature header")
	// ErrMismatch reports a well-formed signature that matches no active
	// secret, whatever its length or encoding.
	ErrMismatch = errors.New("signature: signature does not match")
	// ErrStale reports a signature that matches but whose signed timestamp
	// is outside the tolerance, in either direction.
	ErrStale = errors.New("signature: timestamp outside tolerance")
	// ErrMissingIdentity reports a verified request whose event id or type,
	// required by the scheme, cannot be read; Sign returns it for a message
	// without the id or type the scheme must send.
	ErrMissingIdentity = errors.New("signature: missing event identity")
)

// Request is an inbound webhook as it arrived.
type Request struct {
	Header http.Header
	// Body is the raw body, byte for byte.
	Body []byte
	// Now is the receive time the timestamp is checked against; zero means
	// time.Now().
	Now time.Time
	// Method is the HTTP method; empty means POST.
	Method string
	// RawQuery is the request URL's query, without the '?', as it arrived.
	// Twilio signs it; Meta and Microsoft Graph handshakes carry their
	// challenge in it.
	RawQuery string
}

// Result describes a verification. On ErrStale and ErrMismatch it still
// carries the timestamp and skew when the request had a readable timestamp.
type Result struct {
	// Slot is the index in Options.Secrets of the secret that matched,
	// also on ErrStale; store.NoSlot for the scheme "none" and for every
	// other failure.
	Slot int
	// Timestamp is the signed timestamp, when the scheme has one.
	Timestamp    time.Time
	HasTimestamp bool
	// Skew is Now - Timestamp: positive when the request is older than now.
	Skew time.Duration
	// BodySignature is the matched signature decoded (the MAC's bytes,
	// whatever letter case, padding or place in its header it arrived in),
	// set only when it covers the body alone (no timestamp, id or other
	// per-delivery value), so that a captured request still verifies when
	// posted again under a new delivery id. Nil for every other scheme and
	// failure.
	BodySignature []byte
	// SignedContent, when set with BodySignature, is what the signature
	// covers in place of the raw body: Twilio signs its URL and the form's
	// parameters sorted, so bodies that differ in parameter order or
	// encoding carry one signature. A replayed signature is known by
	// BodySignature with SignedContent, else with the body.
	SignedContent []byte
	// SignedQuery is the request's raw query when the matched signature
	// covers it (Twilio signs the full URL), so that the event is stored
	// with it and can be verified again; empty otherwise.
	SignedQuery string
}

// Identity is who a verified request says it is.
type Identity struct {
	// ID is the provider's event id, or the hex SHA-256 of the body when the
	// provider gives none.
	ID     string
	Origin store.IDOrigin
	// Type is the provider's event type, or empty.
	Type string
	// OccurredAt is when the provider says the event happened; zero when it
	// does not say.
	OccurredAt time.Time
}

// Handshake is an answer a provider expects in place of storing the
// request.
type Handshake struct {
	Body        []byte
	ContentType string
}

// Scheme verifies and identifies the requests of one source. It is safe for
// concurrent use.
type Scheme interface {
	// Name returns the scheme's name, one of Names().
	Name() string
	// Verify checks the signature over the raw body, then the timestamp. Its
	// error wraps ErrNoSecret, ErrMissingSignature, ErrMalformedSignature,
	// ErrMismatch or ErrStale.
	Verify(req Request) (Result, error)
	// Identify reads the provider event id, type and occurred_at of a
	// verified request. Its error wraps ErrMissingIdentity.
	Identify(req Request) (Identity, error)
	// Handshake returns the answer a provider expects instead of storing
	// the request (Slack's url_verification challenge). It is called only
	// after Verify succeeded; ok is false for every other request.
	Handshake(req Request) (h Handshake, ok bool)
	// AcceptsGET reports whether the provider sends GET requests the
	// scheme verifies and answers (Meta's subscription check). For every
	// other scheme a GET is not an ingest method.
	AcceptsGET() bool
}

// HMACOptions configures the generic "hmac" scheme. Its fields mirror the
// source configuration field for field.
type HMACOptions struct {
	// Header carries the signature, e.g. "X-Signature"; required.
	Header string
	// Algorithm is sha1, sha256 (the default) or sha512.
	Algorithm string
	// Encoding of the digest: hex (the default) or base64.
	Encoding string
	// Prefix, e.g. "sha256=", is stripped before decoding; when set, a
	// header without it is malformed.
	Prefix string
	// TimestampHeader optionally carries a signed unix timestamp in
	// seconds; it enables the tolerance check.
	TimestampHeader string
	// SignedContent is the template of the signed bytes, with the
	// placeholders {body}, {timestamp} and {id} (the value of
	// Options.IDHeader). The default is "{body}", or "{timestamp}.{body}"
	// when TimestampHeader is set.
	SignedContent string
}

// Options configures a Scheme.
type Options struct {
	// Scheme is one of Names().
	Scheme string
	// Secrets are numbered by their index, from slot 0. An empty entry is
	// inactive but keeps its number.
	Secrets []string
	// Tolerance bounds the skew of a signed timestamp; 0 means
	// DefaultToleranceOf(Scheme), the provider's own default.
	Tolerance time.Duration
	// AllowSHA1 accepts GitHub's legacy X-Hub-Signature header when
	// X-Hub-Signature-256 is absent.
	AllowSHA1 bool
	// HMAC configures the scheme "hmac".
	HMAC HMACOptions
	// PublicURL is the URL the provider calls, as it sees it (twilio and
	// square sign it; the relay usually sits behind a proxy).
	PublicURL string
	// PublicKeys verify the public-key schemes: hex Ed25519 for discord,
	// base64 DER P-256 for sendgrid, whpk_ Ed25519 for standard's v1a. Like
	// secrets, several may be active and an empty entry keeps its number;
	// their slots follow the secrets' (slot len(Secrets)+i).
	PublicKeys []string
	// VerifyToken is what Meta's subscription GET must carry in
	// hub.verify_token.
	VerifyToken string
	// IDHeader and IDField (a bodyfield path) tell where the event id is
	// read: first for the schemes hmac and none, and as a fallback for the
	// others when the provider's own id is absent. TypeHeader and TypeField
	// do the same for the event type.
	IDHeader, IDField, TypeHeader, TypeField string
}

// schemes maps each scheme name to its constructor, in the order Names
// lists them.
var schemes = []struct {
	name  string
	build func(o Options, c common) (Scheme, error)
}{
	{"stripe", newStripe},
	{"github", newGitHub},
	{"shopify", newShopify},
	{"standard", newStandard},
	{"slack", newSlack},
	{"gitlab", newGitLab},
	{"hmac", newHMAC},
	{"none", newNone},
	{"twilio", newTwilio},
	{"paddle", newPaddle},
	{"zoom", newZoom},
	{"meta", newMeta},
	{"discord", newDiscord},
	{"sendgrid", newSendGrid},
	{"mailgun", newMailgun},
	{"square", newSquare},
	{"linear", newLinear},
	{"intercom", newIntercom},
	{"msgraph", newMSGraph},
}

// Names returns every scheme name.
func Names() []string {
	names := make([]string, len(schemes))
	for i, s := range schemes {
		names[i] = s.name
	}
	return names
}

// New builds the scheme o.Scheme, decoding secrets and preparing their keys
// once. Its error names the problem: an unknown scheme, a bad hmac option,
// a secret that cannot be decoded, a bad tolerance or body path.
func New(o Options) (Scheme, error) {
	c, err := newCommon(o)
	if err != nil {
		return nil, err
	}
	for _, s := range schemes {
		if s.name == o.Scheme {
			return s.build(o, c)
		}
	}
	return nil, fmt.Errorf("unknown scheme %q (want one of %s)", o.Scheme, strings.Join(Names(), ", "))
}

// common holds what every scheme shares: the tolerance and where the
// configured id and type live.
type common struct {
	tolerance time.Duration
	fields    fields
}

func newCommon(o Options) (common, error) {
	tol := o.Tolerance
	if tol < 0 {
		return common{}, fmt.Errorf("tolerance %s is negative", tol)
	}
	if tol == 0 {
		tol = DefaultToleranceOf(o.Scheme)
	}
	f, err := newFields(o)
	if err != nil {
		return common{}, err
	}
	return common{tolerance: tol, fields: f}, nil
}

// now returns the request's receive time.
func (r Request) now() time.Time {
	if r.Now.IsZero() {
		return time.Now()
	}
	return r.Now
}

// AcceptsGET reports false: the provider only POSTs. Meta's scheme
// overrides it.
func (common) AcceptsGET() bool { return false }

// method returns the request's HTTP method.
func (r Request) method() string {
	if r.Method == "" {
		return http.MethodPost
	}
	return r.Method
}

// noHandshake is embedded by every scheme without a handshake.
type noHandshake struct{}

// Handshake reports false: the scheme has no handshake.
func (noHandshake) Handshake(Request) (Handshake, bool) { return Handshake{}, false }
