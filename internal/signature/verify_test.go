package signature

import (
	"bytes"
	"crypto"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
)

// testNow is the receive time of the shared cases.
var testNow = time.Unix(1700000000, 0).UTC()

// spacedBody is a JSON body whose re-serialisation differs from its bytes.
var spacedBody = []byte("{ \"id\": \"evt_1\",  \"type\": \"invoice.paid\",\n  \"created\": 1700000000, \"b\": 1, \"a\": 2 }")

// schemeCase describes one scheme to the shared verification table.
type schemeCase struct {
	opts Options // Scheme and scheme options; the cases set Secrets
	// secret turns a name into a secret the scheme accepts.
	secret func(name string) string
	// timestamped schemes also get the stale cases.
	timestamped bool
	// bodyUnsigned is set for a scheme whose secret does not cover the
	// body (GitLab's token), so a changed body still verifies.
	bodyUnsigned bool
	// required lists headers whose absence is missingErr
	// (ErrMissingSignature when nil).
	required   []string
	missingErr error
	// malform breaks the signed request's signature header; malformedErr
	// is what Verify then says (ErrMismatch for schemes whose header has no
	// structure to break).
	malform      func(h http.Header)
	malformedErr error
	// publicKey is set for a public-key scheme: it turns a name into the
	// configured public key, and the name's private key signs.
	publicKey func(t *testing.T, name string) (public string, private crypto.Signer)
}

func plainSecret(name string) string { return name + "-secret" }

// whsecSecret makes a Standard Webhooks secret from a name.
func whsecSecret(name string) string {
	return "whsec_" + base64.StdEncoding.EncodeToString([]byte(name+"-secret-0123456789"))
}

func (sc schemeCase) with(names ...string) Options {
	o := sc.opts
	o.Secrets = nil
	for _, n := range names {
		s := ""
		if n != "" {
			s = sc.secret(n)
		}
		o.Secrets = append(o.Secrets, s)
	}
	if sc.publicKey != nil {
		o.Secrets, o.PublicKeys = nil, o.Secrets
		for i, n := range names {
			if n != "" {
				o.PublicKeys[i], _ = sc.publicKey(nil, n)
			}
		}
	}
	return o
}

// signed returns a request signed with the named secret in slot of the
// list names, at the time at.
func (sc schemeCase) signed(t *testing.T, names []string, slot int, body []byte, at time.Time) Request {
	t.Helper()
	msg := Message{ID: "msg_1", Type: "invoice.paid", Body: body, Now: at}
	if sc.publicKey != nil {
		_, msg.Key = sc.publicKey(t, names[slot])
	}
	r, err := SignRequest(sc.with(names...), slot, msg)
	if err != nil {
		t.Fatalf("Sign: %v", err)
	}
	return Request{Header: r.Header, Body: r.Body, RawQuery: r.RawQuery, Now: testNow}
}

func verify(t *testing.T, o Options, req Request) (Result, error) {
	t.Helper()
	s, err := New(o)
	if err != nil {
		t.Fatalf("New(%+v): %v", o, err)
	}
	return s.Verify(req)
}

// runVerifyCases runs the cases every signing scheme must pass.
func runVerifyCases(t *testing.T, sc schemeCase) {
	t.Helper()
	old := testNow.Add(-10 * time.Minute)
	future := testNow.Add(10 * time.Minute)
	compact := new(bytes.Buffer)
	if err := json.Compact(compact, spacedBody); err != nil {
		t.Fatal(err)
	}

	reserialisedErr := ErrMismatch
	if sc.bodyUnsigned {
		reserialisedErr = nil
	}

	type tc struct {
		name      string
		verifyBy  []string // secret names configured on the verifier
		req       func(t *testing.T) Request
		wantErr   error
		wantSlot  int
		wantSkew  time.Duration // checked when the scheme is timestamped and wantTS
		wantTS    bool
		tolerance time.Duration
	}
	cases := []tc{
		{name: "valid", verifyBy: []string{"a"}, wantSlot: 0,
			req: func(t *testing.T) Request { return sc.signed(t, []string{"a"}, 0, compact.Bytes(), testNow) }},
		{name: "secret in slot 1", verifyBy: []string{"a", "b"}, wantSlot: 1,
			req: func(t *testing.T) Request { return sc.signed(t, []string{"b"}, 0, spacedBody, testNow) }},
		{name: "empty entry keeps slot numbering", verifyBy: []string{"", "a", "", "b"}, wantSlot: 3,
			req: func(t *testing.T) Request { return sc.signed(t, []string{"a", "b"}, 1, spacedBody, testNow) }},
		{name: "rotated out secret", verifyBy: []string{"new"}, wantErr: ErrMismatch,
			req: func(t *testing.T) Request { return sc.signed(t, []string{"new", "old"}, 1, spacedBody, testNow) }},
		{name: "wrong secret", verifyBy: []string{"a", "b"}, wantErr: ErrMismatch,
			req: func(t *testing.T) Request { return sc.signed(t, []string{"c"}, 0, spacedBody, testNow) }},
		{name: "spaced body verifies over its raw bytes", verifyBy: []string{"a"}, wantSlot: 0,
			req: func(t *testing.T) Request { return sc.signed(t, []string{"a"}, 0, spacedBody, testNow) }},
		{name: "re-serialised body", verifyBy: []string{"a"}, wantErr: reserialisedErr,
			req: func(t *testing.T) Request {
				r := sc.signed(t, []string{"a"}, 0, spacedBody, testNow)
				r.Body = compact.Bytes()
				return r
			}},
		{name: "no secret", verifyBy: nil, wantErr: ErrNoSecret,
			req: func(t *testing.T) Request { return sc.signed(t, []string{"a"}, 0, spacedBody, testNow) }},
		{name: "only empty secrets", verifyBy: []string{"", ""}, wantErr: ErrNoSecret,
			req: func(t *testing.T) Request { return sc.signed(t, []string{"a"}, 0, spacedBody, testNow) }},
		{name: "malformed header", verifyBy: []string{"a"}, wantErr: sc.malformedErr,
			req: func(t *testing.T) Request {
				r := sc.signed(t, []string{"a"}, 0, spacedBody, testNow)
				sc.malform(r.Header)
				return r
			}},
	}
	missing := sc.missingErr
	if missing == nil {
		missing = ErrMissingSignature
	}
	for _, name := range sc.required {
		cases = append(cases, tc{name: "missing " + name, verifyBy: []string{"a"}, wantErr: missing,
			req: func(t *testing.T) Request {
				r := sc.signed(t, []string{"a"}, 0, spacedBody, testNow)
				r.Header.Del(name)
				return r
			}})
	}
	if sc.timestamped {
		cases = append(cases,
			tc{name: "valid carries timestamp", verifyBy: []string{"a"}, wantSlot: 0, wantTS: true, wantSkew: 2 * time.Second,
				req: func(t *testing.T) Request {
					return sc.signed(t, []string{"a"}, 0, spacedBody, testNow.Add(-2*time.Second))
				}},
			tc{name: "old timestamp", verifyBy: []string{"a"}, wantErr: ErrStale, wantSlot: 0, wantTS: true, wantSkew: 10 * time.Minute,
				req: func(t *testing.T) Request { return sc.signed(t, []string{"a"}, 0, spacedBody, old) }},
			tc{name: "future timestamp", verifyBy: []string{"a"}, wantErr: ErrStale, wantSlot: 0, wantTS: true, wantSkew: -10 * time.Minute,
				req: func(t *testing.T) Request { return sc.signed(t, []string{"a"}, 0, spacedBody, future) }},
			tc{name: "forged old request is a mismatch", verifyBy: []string{"a"}, wantErr: ErrMismatch, wantTS: true, wantSkew: 10 * time.Minute,
				req: func(t *testing.T) Request { return sc.signed(t, []string{"x"}, 0, spacedBody, old) }},
			tc{name: "tolerance is configurable", verifyBy: []string{"a"}, wantErr: ErrStale, wantSlot: 0, wantTS: true, wantSkew: 2 * time.Minute,
				tolerance: time.Minute,
				req: func(t *testing.T) Request {
					return sc.signed(t, []string{"a"}, 0, spacedBody, testNow.Add(-2*time.Minute))
				}},
		)
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			o := sc.with(c.verifyBy...)
			o.Tolerance = c.tolerance
			res, err := verify(t, o, c.req(t))
			if !errors.Is(err, c.wantErr) || (c.wantErr == nil && err != nil) {
				t.Fatalf("Verify error = %v; want %v", err, c.wantErr)
			}
			wantSlot := c.wantSlot
			if errors.Is(c.wantErr, ErrMismatch) || errors.Is(c.wantErr, ErrNoSecret) ||
				errors.Is(c.wantErr, ErrMissingSignature) || errors.Is(c.wantErr, ErrMalformedSignature) {
				wantSlot = store.NoSlot
			}
			if res.Slot != wantSlot {
				t.Errorf("Slot = %d; want %d", res.Slot, wantSlot)
			}
			if c.wantTS {
				if !res.HasTimestamp || res.Skew != c.wantSkew {
					t.Errorf("HasTimestamp, Skew = %v, %s; want true, %s", res.HasTimestamp, res.Skew, c.wantSkew)
				}
			} else if err == nil && res.HasTimestamp != sc.timestamped {
				t.Errorf("HasTimestamp = %v; want %v", res.HasTimestamp, sc.timestamped)
			}
		})
	}
}

// identityCase is one Identify expectation.
type identityCase struct {
	name    string
	opts    Options // Secrets unused
	header  http.Header
	body    string
	want    Identity
	wantErr error
}

func runIdentityCases(t *testing.T, cases []identityCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			s, err := New(c.opts)
			if err != nil {
				t.Fatalf("New: %v", err)
			}
			h := c.header
			if h == nil {
				h = http.Header{}
			}
			got, err := s.Identify(Request{Header: h, Body: []byte(c.body), Now: testNow})
			if !errors.Is(err, c.wantErr) || (c.wantErr == nil && err != nil) {
				t.Fatalf("Identify error = %v; want %v", err, c.wantErr)
			}
			if c.wantErr != nil {
				return
			}
			if got.ID != c.want.ID || got.Origin != c.want.Origin || got.Type != c.want.Type || !got.OccurredAt.Equal(c.want.OccurredAt) {
				t.Errorf("Identify = %+v; want %+v", got, c.want)
			}
		})
	}
}

// header builds an http.Header from name, value pairs.
func header(kv ...string) http.Header {
	h := http.Header{}
	for i := 0; i+1 < len(kv); i += 2 {
		h.Set(kv[i], kv[i+1])
	}
	return h
}

// hashOf is the body-hash id of s.
func hashOf(s string) string { return bodyHash([]byte(s)) }
