package signature

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"sync"
	"testing"
	"time"
)

// vector is one entry of testdata/signature-vectors.json: a request some
// provider sent or would send, and whether it must verify.
type vector struct {
	Name          string            `json:"name"`
	Scheme        string            `json:"scheme"`
	Secret        string            `json:"secret"`
	Headers       map[string]string `json:"headers"`
	Body          string            `json:"body"`
	Now           int64             `json:"now"`
	ExpectedValid bool              `json:"expected_valid"`
	// URL is the URL the provider called (twilio, square).
	URL string `json:"url"`
	// PublicKey verifies the public-key fixtures (discord).
	PublicKey string `json:"public_key"`
	// SigningPrivateKey is the base64 Ed25519 seed that signed a v1a
	// vector.
	SigningPrivateKey string `json:"signing_private_key"`
}

// vectorFiles are the published vectors; the fixtures the providers' own
// libraries made, accepted or refused are checked, every preset alike, by
// TestProviderFixtures.
var vectorFiles = []string{"testdata/signature-vectors.json"}

var loadVectors = sync.OnceValues(func() ([]vector, error) {
	var all []vector
	for _, f := range vectorFiles {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		var vs []vector
		if err := json.Unmarshal(b, &vs); err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		all = append(all, vs...)
	}
	return all, nil
})

// vectorsOf returns the vectors of the named provider schemes.
func vectorsOf(t *testing.T, schemes ...string) []vector {
	t.Helper()
	all, err := loadVectors()
	if err != nil {
		t.Fatalf("load vectors: %v", err)
	}
	var out []vector
	for _, v := range all {
		for _, s := range schemes {
			if v.Scheme == s {
				out = append(out, v)
			}
		}
	}
	if len(out) == 0 {
		t.Fatalf("no vectors for %v", schemes)
	}
	return out
}

// request turns the vector into a Request. A vector without a time is
// checked at the present.
func (v vector) request() Request {
	h := http.Header{}
	for k, val := range v.Headers {
		h.Set(k, val)
	}
	r := Request{Header: h, Body: []byte(v.Body)}
	if v.Now != 0 {
		r.Now = time.Unix(v.Now, 0)
	}
	return r
}

// runVectors verifies every vector of the provider schemes with opts and
// the vector's secret. wantErr names the error of every vector that must
// fail, so each failure is judged, not just counted; skip names vectors the
// scheme cannot express, with the reason.
func runVectors(t *testing.T, opts Options, wantErr map[string]error, skip map[string]string, schemes ...string) {
	t.Helper()
	runVectorsWith(t, func(v vector, o *Options, _ *Request) { o.Secrets = []string{v.Secret} }, opts, wantErr, skip, schemes...)
}

// runVectorsWith is runVectors with the options and request of each vector
// prepared by prepare.
func runVectorsWith(t *testing.T, prepare func(v vector, o *Options, r *Request), opts Options, wantErr map[string]error, skip map[string]string, schemes ...string) {
	t.Helper()
	for _, v := range vectorsOf(t, schemes...) {
		t.Run(v.Name, func(t *testing.T) {
			t.Parallel()
			if why, ok := skip[v.Name]; ok {
				t.Skip(why)
			}
			o, req := opts, v.request()
			prepare(v, &o, &req)
			_, err := verify(t, o, req)
			if v.ExpectedValid {
				if err != nil {
					t.Fatalf("Verify: %v; want valid", err)
				}
				return
			}
			want, ok := wantErr[v.Name]
			if !ok {
				t.Fatalf("invalid vector has no expected error (Verify said %v)", err)
			}
			if !errors.Is(err, want) {
				t.Fatalf("Verify error = %v; want %v", err, want)
			}
		})
	}
}

// TestVectorsAccountedFor makes sure every provider in the vector file is
// either verified by some test or knowingly left out.
func TestVectorsAccountedFor(t *testing.T) {
	t.Parallel()
	covered := map[string]string{
		"stripe": "stripe", "github": "github", "shopify": "shopify", "slack": "slack", "gitlab": "gitlab",
		"standard-webhooks": "standard", "svix": "standard",
		"linear": "linear", "intercom": "intercom", "zoom": "zoom", "standard-webhooks-asymmetric": "standard",
		"twilio": "twilio", "paddle": "paddle", "sendgrid": "sendgrid", "mailgun": "mailgun",
		"discord": "discord", "square": "square",
	}
	unsupported := map[string]string{}
	all, err := loadVectors()
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range all {
		if _, ok := covered[v.Scheme]; ok {
			continue
		}
		if _, ok := unsupported[v.Scheme]; !ok {
			t.Errorf("vector %s: provider %q is neither tested nor listed as unsupported", v.Name, v.Scheme)
		}
	}
}
