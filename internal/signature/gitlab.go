package signature

import (
	"crypto/sha256"
	"crypto/subtle"
	"fmt"
	"net/http"
)

// GitLab's headers.
var (
	gitlabToken          = http.CanonicalHeaderKey("X-Gitlab-Token")
	gitlabEvent          = http.CanonicalHeaderKey("X-Gitlab-Event")
	gitlabIdempotencyKey = http.CanonicalHeaderKey("Idempotency-Key")
	gitlabWebhookUUID    = http.CanonicalHeaderKey("X-Gitlab-Webhook-UUID")
)

// gitlab compares "X-Gitlab-Token" with each secret. GitLab sends the
// configured token itself, not a signature, and signs no timestamp.
type gitlab struct {
	common
	noHandshake
	secrets []string // for signing
	// digests holds the SHA-256 of each secret by slot (nil when
	// inactive): comparing digests takes the same time whatever the
	// token's length.
	digests [][]byte
	active  bool
}

func newGitLab(o Options, c common) (Scheme, error) {
	g := &gitlab{common: c, secrets: o.Secrets, digests: make([][]byte, len(o.Secrets))}
	for i, s := range o.Secrets {
		if s != "" {
			sum := sha256.Sum256([]byte(s))
			g.digests[i], g.active = sum[:], true
		}
	}
	return g, nil
}

func (*gitlab) Name() string { return "gitlab" }

func (g *gitlab) Verify(req Request) (Result, error) {
	if !g.active {
		return failed(ErrNoSecret)
	}
	token, err := required(req.Header, gitlabToken)
	if err != nil {
		return failed(err)
	}
	got := sha256.Sum256([]byte(token))
	for slot, d := range g.digests {
		if d != nil && subtle.ConstantTimeCompare(got[:], d) == 1 {
			return untimed(slot, true)
		}
	}
	return untimed(0, false)
}

// Identify prefers Idempotency-Key (GitLab 17.4+), which is unique per
// delivery and the same on its retries. X-Gitlab-Webhook-UUID is unique
// per request, so retries from older GitLab are not deduplicated but no
// event is lost. X-Gitlab-Event-UUID is not used: every webhook triggered
// by one request, and every recursive one, shares it, so it would collapse
// distinct events. The type is X-Gitlab-Event.
func (g *gitlab) Identify(req Request) (Identity, error) {
	var id Identity
	id.ID, id.Origin = headerID(req.Header.Get(gitlabIdempotencyKey))
	if id.ID == "" {
		id.ID, id.Origin = headerID(req.Header.Get(gitlabWebhookUUID))
	}
	id.Type = req.Header.Get(gitlabEvent)
	return g.fields.complete(req, id, need{})
}

func (g *gitlab) sign(slot int, msg Message) (http.Header, error) {
	if slot < 0 || slot >= len(g.digests) || g.digests[slot] == nil {
		return nil, fmt.Errorf("secret slot %d: %w", slot, ErrNoSecret)
	}
	h := http.Header{}
	h.Set(gitlabToken, g.secrets[slot])
	setIf(h, gitlabIdempotencyKey, msg.ID)
	setIf(h, gitlabEvent, msg.Type)
	return h, nil
}
