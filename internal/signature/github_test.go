package signature

import (
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/hookrelay/hookrelay/internal/store"
)

var githubCase = schemeCase{
	opts:     Options{Scheme: "github"},
	secret:   plainSecret,
	required: []string{"X-Hub-Signature-256"},
	malform: func(h http.Header) {
		h.Set("X-Hub-Signature-256", strings.TrimPrefix(h.Get("X-Hub-Signature-256"), "sha256="))
	},
	malformedErr: ErrMalformedSignature,
}

func TestGitHubVerify(t *testing.T) {
	t.Parallel()
	runVerifyCases(t, githubCase)
}

func TestGitHubVerifySHA1(t *testing.T) {
	t.Parallel()
	sha1Case := githubCase
	sha1Case.opts.AllowSHA1 = true
	// Signed with both headers, as GitHub sends them; the sha256 one is
	// checked. Without it the legacy one is, so neither alone is required.
	sha1Case.required = nil
	runVerifyCases(t, sha1Case)
	t.Run("legacy header only", func(t *testing.T) {
		req := sha1Case.signed(t, []string{"a"}, 0, spacedBody, testNow)
		req.Header.Del("X-Hub-Signature-256")
		if res, err := verify(t, sha1Case.with("a"), req); err != nil || res.Slot != 0 {
			t.Errorf("Verify = %+v, %v; want slot 0", res, err)
		}
		// Without allow_sha1 the legacy header is not looked at.
		if _, err := verify(t, githubCase.with("a"), req); !errors.Is(err, ErrMissingSignature) {
			t.Errorf("Verify without AllowSHA1 = %v; want ErrMissingSignature", err)
		}
		req.Header.Del("X-Hub-Signature")
		if _, err := verify(t, sha1Case.with("a"), req); !errors.Is(err, ErrMissingSignature) {
			t.Errorf("Verify without either header = %v; want ErrMissingSignature", err)
		}
	})
	t.Run("sha256 wins over a forged legacy header", func(t *testing.T) {
		req := sha1Case.signed(t, []string{"a"}, 0, spacedBody, testNow)
		req.Header.Set("X-Hub-Signature-256", "sha256="+strings.Repeat("0", 64))
		if _, err := verify(t, sha1Case.with("a"), req); !errors.Is(err, ErrMismatch) {
			t.Errorf("Verify = %v; want ErrMismatch", err)
		}
	})
	t.Run("legacy header malformed", func(t *testing.T) {
		req := sha1Case.signed(t, []string{"a"}, 0, spacedBody, testNow)
		req.Header.Del("X-Hub-Signature-256")
		req.Header.Set("X-Hub-Signature", strings.TrimPrefix(req.Header.Get("X-Hub-Signature"), "sha1="))
		if _, err := verify(t, sha1Case.with("a"), req); !errors.Is(err, ErrMalformedSignature) {
			t.Errorf("Verify = %v; want ErrMalformedSignature", err)
		}
	})
}

func TestGitHubVectors(t *testing.T) {
	t.Parallel()
	wantErr := map[string]error{
		"octokit-verify-bad-hex":      ErrMismatch,
		"octokit-verify-garbage":      ErrMalformedSignature,
		"octokit-verify-wrong-secret": ErrMismatch,
	}
	t.Run("allow_sha1", func(t *testing.T) {
		t.Parallel()
		runVectors(t, Options{Scheme: "github", AllowSHA1: true}, wantErr, nil, "github")
	})
	t.Run("sha256 only", func(t *testing.T) {
		t.Parallel()
		// The legacy-only vector must fail when sha1 is not allowed.
		legacy := map[string]string{"github-docs-vector-legacy-sha1": "checked below"}
		runVectors(t, Options{Scheme: "github"}, wantErr, legacy, "github")
		for _, v := range vectorsOf(t, "github") {
			if _, ok := legacy[v.Name]; !ok {
				continue
			}
			o := Options{Scheme: "github", Secrets: []string{v.Secret}}
			if _, err := verify(t, o, v.request()); !errors.Is(err, ErrMissingSignature) {
				t.Errorf("%s without AllowSHA1: %v; want ErrMissingSignature", v.Name, err)
			}
		}
	})
}

func TestGitHubIdentify(t *testing.T) {
	t.Parallel()
	o := Options{Scheme: "github"}
	body := `{"action":"opened","number":1}`
	runIdentityCases(t, []identityCase{
		{name: "delivery and event", opts: o, body: body,
			header: header("X-GitHub-Delivery", "72d3162e-cc78-11e3-81ab-4c9367dc0958", "X-GitHub-Event", "pull_request"),
			want:   Identity{ID: "72d3162e-cc78-11e3-81ab-4c9367dc0958", Origin: store.IDFromHeader, Type: "pull_request"}},
		{name: "no delivery", opts: o, body: body, header: header("X-GitHub-Event", "push"), wantErr: ErrMissingIdentity},
		{name: "no event", opts: o, body: body, header: header("X-GitHub-Delivery", "d1"), wantErr: ErrMissingIdentity},
		{name: "configured type field as fallback",
			opts:   Options{Scheme: "github", TypeField: "action"},
			header: header("X-GitHub-Delivery", "d1"), body: body,
			want: Identity{ID: "d1", Origin: store.IDFromHeader, Type: "opened"}},
	})
}
