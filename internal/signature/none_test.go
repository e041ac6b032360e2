package signature

import (
	"net/http"
	"testing"

	"github.com/hookrelay/hookrelay/internal/store"
)

func TestNoneVerify(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		secrets []string
		header  http.Header
	}{
		{"no secret, no header", nil, http.Header{}},
		{"secrets are ignored", []string{"a"}, http.Header{}},
		{"any signature header is ignored", nil, header("Stripe-Signature", "garbage")},
	}
	for _, tt := range tests {
		res, err := verify(t, Options{Scheme: "none", Secrets: tt.secrets}, Request{Header: tt.header, Body: spacedBody})
		if err != nil || res.Slot != store.NoSlot || res.HasTimestamp {
			t.Errorf("%s: Verify = %+v, %v; want slot %d", tt.name, res, err, store.NoSlot)
		}
	}
}

func TestNoneIdentify(t *testing.T) {
	t.Parallel()
	body := `{"id":"e1","kind":"k"}`
	runIdentityCases(t, []identityCase{
		{name: "configured", opts: Options{Scheme: "none", IDField: "id", TypeField: "kind"}, body: body,
			want: Identity{ID: "e1", Origin: store.IDFromBody, Type: "k"}},
		{name: "body hash", opts: Options{Scheme: "none"}, body: body,
			want: Identity{ID: hashOf(body), Origin: store.IDFromHash}},
	})
}
