package signature

import (
	"net/http"
	"strings"
	"testing"

	"github.com/hookrelay/hookrelay/internal/store"
)

var intercomCase = schemeCase{
	opts:     Options{Scheme: "intercom"},
	secret:   plainSecret,
	required: []string{"X-Hub-Signature"},
	malform: func(h http.Header) {
		h.Set("X-Hub-Signature", strings.TrimPrefix(h.Get("X-Hub-Signature"), "sha1="))
	},
	malformedErr: ErrMalformedSignature,
}

func TestIntercomVerify(t *testing.T) {
	t.Parallel()
	runVerifyCases(t, intercomCase)
}

func TestIntercomVectors(t *testing.T) {
	t.Parallel()
	runVectors(t, Options{Scheme: "intercom"}, nil, nil, "intercom")
}

func TestIntercomIdentify(t *testing.T) {
	t.Parallel()
	o := Options{Scheme: "intercom"}
	runIdentityCases(t, []identityCase{
		{name: "notification", opts: o, body: `{"type":"notification_event","id":"notif_1","topic":"conversation.user.created","created_at":1700000000}`,
			want: Identity{ID: "notif_1", Origin: store.IDFromBody, Type: "conversation.user.created", OccurredAt: testNow}},
		{name: "no id", opts: o, body: `{"topic":"x"}`, wantErr: ErrMissingIdentity},
	})
}
