package signature

import (
	"net/http"
	"testing"

	"github.com/hookrelay/hookrelay/internal/store"
)

var gitlabCase = schemeCase{
	opts:     Options{Scheme: "gitlab"},
	secret:   plainSecret,
	required: []string{"X-Gitlab-Token"},
	// GitLab sends a shared token, not a signature of the body.
	bodyUnsigned: true,
	// The token is opaque text: any value is well-formed, and a wrong one,
	// of whatever length, is a mismatch.
	malform:      func(h http.Header) { h.Set("X-Gitlab-Token", h.Get("X-Gitlab-Token")+"\x00") },
	malformedErr: ErrMismatch,
}

func TestGitLabVerify(t *testing.T) {
	t.Parallel()
	runVerifyCases(t, gitlabCase)
}

func TestGitLabVectors(t *testing.T) {
	t.Parallel()
	runVectors(t, Options{Scheme: "gitlab"}, map[string]error{
		"gitlab-token-mismatch": ErrMismatch,
	}, nil, "gitlab")
}

func TestGitLabIdentify(t *testing.T) {
	t.Parallel()
	o := Options{Scheme: "gitlab"}
	body := `{"object_kind":"push","event_name":"push","ref":"refs/heads/main"}`
	runIdentityCases(t, []identityCase{
		{name: "idempotency key", opts: o, body: body,
			header: header("Idempotency-Key", "908a6d9e", "X-Gitlab-Webhook-UUID", "0f2b1c1e",
				"X-Gitlab-Event-UUID", "13792a34", "X-Gitlab-Event", "Push Hook"),
			want: Identity{ID: "908a6d9e", Origin: store.IDFromHeader, Type: "Push Hook"}},
		{name: "webhook uuid before GitLab 17.4", opts: o, body: body,
			header: header("X-Gitlab-Webhook-UUID", "0f2b1c1e", "X-Gitlab-Event-UUID", "13792a34", "X-Gitlab-Event", "Push Hook"),
			want:   Identity{ID: "0f2b1c1e", Origin: store.IDFromHeader, Type: "Push Hook"}},
		{name: "event uuid alone is shared, so the body is hashed", opts: o, body: body,
			header: header("X-Gitlab-Event-UUID", "13792a34", "X-Gitlab-Event", "Push Hook"),
			want:   Identity{ID: hashOf(body), Origin: store.IDFromHash, Type: "Push Hook"}},
		{name: "configured id field", opts: Options{Scheme: "gitlab", IDField: "ref"}, body: body,
			header: header("X-Gitlab-Event", "Push Hook"),
			want:   Identity{ID: "refs/heads/main", Origin: store.IDFromBody, Type: "Push Hook"}},
	})
}
