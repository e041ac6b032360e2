package signature

import (
	"crypto/sha256"
	"net/http"
)

// Slack's headers.
const (
	slackSignature = "X-Slack-Signature"
	slackTimestamp = "X-Slack-Request-Timestamp"
)

// slack verifies "X-Slack-Signature: v0=<hex>", the HMAC-SHA256 of
// "v0:<X-Slack-Request-Timestamp>:<body>" keyed with the signing secret.
type slack struct {
	common
	keys keyring
}

func newSlack(o Options, c common) (Scheme, error) {
	keys, err := newKeyring(o.Secrets, sha256.New, nil)
	if err != nil {
		return nil, err
	}
	return &slack{common: c, keys: keys}, nil
}

func (*slack) Name() string { return "slack" }

func (s *slack) Verify(req Request) (Result, error) {
	if !s.keys.active() {
		return failed(ErrNoSecret)
	}
	sig, err := prefixed(req.Header, slackSignature, "v0=")
	if err != nil {
		return failed(err)
	}
	raw, ts, err := signedTime(req.Header, slackTimestamp)
	if err != nil {
		return failed(err)
	}
	slot, matched := s.keys.match(slackV0, &content{timestamp: raw, body: req.Body}, hexEncoding, []string{sig})
	return verdict(slot, matched, ts, true, req.now(), s.tolerance)
}

// Identify reads an Events API callback: event_id, the inner event's type
// (or the top-level type, e.g. url_verification) and event_time.
// Interactive and slash-command payloads carry no event id and fall back to
// the body hash.
func (s *slack) Identify(req Request) (Identity, error) {
	var id Identity
	id.ID, id.Origin = bodyID(req.Body, "event_id")
	if id.Type = bodyString(req.Body, "event.type"); id.Type == "" {
		id.Type = bodyString(req.Body, "type")
	}
	id.OccurredAt = bodyUnix(req.Body, "event_time")
	return s.fields.complete(req, id, need{})
}

// Handshake answers Slack's url_verification request with its challenge.
func (s *slack) Handshake(req Request) (Handshake, bool) {
	if bodyString(req.Body, "type") != "url_verification" {
		return Handshake{}, false
	}
	challenge := bodyString(req.Body, "challenge")
	if challenge == "" {
		return Handshake{}, false
	}
	return Handshake{Body: []byte(challenge), ContentType: "text/plain"}, true
}

func (s *slack) sign(slot int, msg Message) (http.Header, error) {
	ts := formatUnix(msg.now())
	sig, err := s.keys.sign(slot, slackV0, &content{timestamp: ts, body: msg.Body}, hexEncoding)
	if err != nil {
		return nil, err
	}
	h := http.Header{}
	h.Set(slackTimestamp, ts)
	h.Set(slackSignature, "v0="+sig)
	return h, nil
}
