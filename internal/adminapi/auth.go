package adminapi

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/hookrelay/hookrelay/internal/config"
)

// tokenSet holds the configured tokens with the SHA-256 of each secret:
// comparing digests takes the same time whatever the length of what a
// caller sends.
type tokenSet struct {
	tokens  []config.Token
	digests [][sha256.Size]byte
}

func newTokenSet(tokens []config.Token) tokenSet {
	var s tokenSet
	for _, t := range tokens {
		if t.Secret == "" {
			continue // an empty secret never authenticates
		}
		s.tokens = append(s.tokens, t)
		s.digests = append(s.digests, sha256.Sum256([]byte(t.Secret)))
	}
	return s
}

// authenticate returns the token whose secret the Authorization header
// carries. It compares with every token, whatever matched before, so that
// the time taken tells nothing about which token matched or where.
func (s tokenSet) authenticate(header string) (*config.Token, bool) {
	scheme, secret, ok := strings.Cut(header, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return nil, false
	}
	got := sha256.Sum256([]byte(strings.TrimSpace(secret)))
	match := -1
	for i := range s.digests {
		eq := subtle.ConstantTimeCompare(got[:], s.digests[i][:])
		match = subtle.ConstantTimeSelect(eq, i, match)
	}
	if match < 0 {
		return nil, false
	}
	return &s.tokens[match], true
}

type tokenKey struct{}

func withToken(ctx context.Context, t *config.Token) context.Context {
	return context.WithValue(ctx, tokenKey{}, t)
}

// tokenFrom returns the request's authenticated token. ServeHTTP puts it in
// every request it routes.
func tokenFrom(ctx context.Context) *config.Token {
	t, _ := ctx.Value(tokenKey{}).(*config.Token)
	if t == nil {
		return &config.Token{}
	}
	return t
}

// allowRead lets in the roles that may read: read and admin.
func allowRead(t *config.Token) bool {
	return t.Role == config.RoleRead || t.Role == config.RoleAdmin
}

// allowAdmin lets in admin tokens only.
func allowAdmin(t *config.Token) bool { return t.Role == config.RoleAdmin }

// allowConsume lets in the roles that may claim and ack: admin, and
// consumers, which canConsume then limits to their own destinations.
func allowConsume(t *config.Token) bool {
	return t.Role == config.RoleAdmin || t.Role == config.RoleConsumer
}

// canConsume reports whether t may claim and ack deliveries of
// destination.
func canConsume(t *config.Token, destination string) bool {
	switch t.Role {
	case config.RoleAdmin:
		return true
	case config.RoleConsumer:
		return slices.Contains(t.Destinations, destination)
	}
	return false
}

// refuseUnread makes the server close the connection once a refusal is
// answered, without reading the rest of the request's body. The server
// would otherwise read what is left of it, to reuse the connection, before
// it even sent the answer, so that a caller without a token could hold the
// connection open by never sending the body it declared.
func refuseUnread(w http.ResponseWriter) {
	w.Header().Set("Connection", "close")
	_ = http.NewResponseController(w).SetReadDeadline(time.Now())
}
