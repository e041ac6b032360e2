package signature

import (
	"encoding/json"
	"errors"
	"os"
	"regexp"
	"strings"
	"testing"
)

// providerFixture is one entry of testdata/provider-fixtures.json: a
// request made by testdata/fixturegen/gen.mjs and checked there by the
// provider's own SDK.
type providerFixture struct {
	vector
	// SDK is "package@version" of the npm SDK that signed or verified it,
	// or "none" where the provider publishes no signer or verifier (Source
	// then says what the request follows).
	SDK    string `json:"sdk"`
	Source string `json:"source"`
	// HMAC configures the generic scheme's fixture.
	HMAC *struct {
		Header          string `json:"header"`
		Algorithm       string `json:"algorithm"`
		Encoding        string `json:"encoding"`
		Prefix          string `json:"prefix"`
		TimestampHeader string `json:"timestamp_header"`
		SignedContent   string `json:"signed_content"`
	} `json:"hmac"`
}

// options returns the scheme options a source configured for the fixture
// has, and the request it receives.
func (f providerFixture) options() (Options, Request) {
	req := f.request()
	o := Options{Scheme: f.Scheme}
	o.PublicURL, req.RawQuery, _ = strings.Cut(f.URL, "?")
	if f.Secret != "" {
		o.Secrets = []string{f.Secret}
	}
	if f.PublicKey != "" {
		o.PublicKeys = []string{f.PublicKey}
	}
	if f.HMAC != nil {
		o.HMAC = HMACOptions(*f.HMAC)
	}
	return o, req
}

func loadProviderFixtures(t *testing.T) []providerFixture {
	t.Helper()
	b, err := os.ReadFile("testdata/provider-fixtures.json")
	if err != nil {
		t.Fatal(err)
	}
	var fs []providerFixture
	if err := json.Unmarshal(b, &fs); err != nil {
		t.Fatalf("provider-fixtures.json: %v", err)
	}
	return fs
}

// fixtureSignatureHeader names, per scheme, the header that carries the
// signature (or token); mailgun and msgraph carry theirs in the body, and
// none has none.
var fixtureSignatureHeader = map[string]string{
	"stripe": "Stripe-Signature", "github": "X-Hub-Signature-256", "shopify": "X-Shopify-Hmac-Sha256",
	"slack": "X-Slack-Signature", "gitlab": "X-Gitlab-Token", "twilio": "X-Twilio-Signature",
	"paddle": "Paddle-Signature", "zoom": "X-Zm-Signature", "meta": "X-Hub-Signature-256",
	"discord": "X-Signature-Ed25519", "sendgrid": "X-Twilio-Email-Event-Webhook-Signature",
	"square": "X-Square-Hmacsha256-Signature", "linear": "Linear-Signature", "intercom": "X-Hub-Signature",
}

// bodyUnsigned lists the schemes whose signature does not cover the whole
// body: GitLab's token covers nothing, Mailgun signs its timestamp and
// token only, Graph's clientState is a shared value, none checks nothing.
var bodyUnsigned = map[string]bool{"gitlab": true, "mailgun": true, "msgraph": true, "none": true}

// mutateChar changes the character of s at i to another of its own
// alphabet (a hex digit stays a hex digit), so the text still parses.
func mutateChar(s string, i int) string {
	c := s[i]
	switch {
	case c >= '0' && c <= '9':
		c = '0' + (c-'0'+1)%10
	case c >= 'a' && c <= 'f':
		c = 'a' + (c-'a'+1)%6
	case c >= 'g' && c <= 'z':
		c = 'g' + (c-'g'+1)%20
	case c >= 'A' && c <= 'Z':
		c = 'A' + (c-'A'+1)%26
	default:
		c = 'A'
	}
	return s[:i] + string(c) + s[i+1:]
}

// mutated changes a character six from the end of a signature: inside the
// digest of every scheme's layout (past a base64 text's padding and its
// partly used last characters).
func mutated(sig string) string { return mutateChar(sig, len(sig)-6) }

// withMutatedSignature returns the request with its signature changed.
func (f providerFixture) withMutatedSignature(t *testing.T, r Request) Request {
	t.Helper()
	r.Header = r.Header.Clone()
	switch f.Scheme {
	case "mailgun", "msgraph":
		re := regexp.MustCompile(`"(signature|clientState)":"([^"{]+)"`)
		m := re.FindStringSubmatchIndex(string(r.Body))
		if m == nil {
			t.Fatal("no signature in the body")
		}
		s := string(r.Body)
		r.Body = []byte(s[:m[4]] + mutated(s[m[4]:m[5]]) + s[m[5]:])
		return r
	case "hmac":
		r.Header.Set(f.HMAC.Header, mutated(r.Header.Get(f.HMAC.Header)))
		return r
	case "standard":
		for _, h := range []string{"Webhook-Signature", "Svix-Signature"} {
			if v := r.Header.Get(h); v != "" {
				r.Header.Set(h, mutated(v))
			}
		}
		return r
	}
	h, ok := fixtureSignatureHeader[f.Scheme]
	if !ok || r.Header.Get(h) == "" {
		t.Fatalf("no signature header known for %s", f.Scheme)
	}
	r.Header.Set(h, mutated(r.Header.Get(h)))
	return r
}

// TestProviderFixtures verifies every preset's fixtures with the preset:
// each request the provider's SDK accepted verifies, each it refused is
// ErrMismatch, and a genuine request with its body or its signature
// changed is ErrMismatch (where the scheme signs the body). Every preset
// has a genuine fixture, and every fixture names the SDK that made it.
func TestProviderFixtures(t *testing.T) {
	t.Parallel()
	fixtures := loadProviderFixtures(t)
	genuine := map[string]bool{}
	sdk := regexp.MustCompile(`^(none|(@[a-z0-9-]+/)?[a-z0-9.-]+@\d+\.\d+\.\d+)$`)
	for _, f := range fixtures {
		if !sdk.MatchString(f.SDK) || f.Source == "" {
			t.Errorf("fixture %s: sdk %q, source %q; want package@version or none, and a source", f.Name, f.SDK, f.Source)
		}
		if f.ExpectedValid {
			genuine[f.Scheme] = true
		}
		t.Run(f.Name, func(t *testing.T) {
			t.Parallel()
			o, req := f.options()
			_, err := verify(t, o, req)
			if !f.ExpectedValid {
				if !errors.Is(err, ErrMismatch) {
					t.Fatalf("Verify of a request %s refused = %v; want ErrMismatch", f.SDK, err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Verify of a request %s accepted = %v", f.SDK, err)
			}
			if f.Scheme == "none" {
				return
			}
			changed := req
			changed.Body = append([]byte(string(req.Body)), ' ')
			_, err = verify(t, o, changed)
			if bodyUnsigned[f.Scheme] {
				if err != nil {
					t.Errorf("body changed, which %s does not sign: Verify = %v", f.Scheme, err)
				}
			} else if !errors.Is(err, ErrMismatch) {
				t.Errorf("body changed: Verify = %v; want ErrMismatch", err)
			}
			if _, err := verify(t, o, f.withMutatedSignature(t, req)); !errors.Is(err, ErrMismatch) {
				t.Errorf("signature changed: Verify = %v; want ErrMismatch", err)
			}
		})
	}
	for _, name := range Names() {
		if !genuine[name] {
			t.Errorf("preset %s has no genuine fixture", name)
		}
	}
}
