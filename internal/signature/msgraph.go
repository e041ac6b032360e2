package signature

import (
	"crypto/subtle"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"

	"github.com/hookrelay/hookrelay/internal/store"
)

// msgraphToken is the query parameter of Microsoft Graph's validation
// request.
const msgraphToken = "validationToken"

// maxValidationToken bounds the validation token echoed back. Graph's
// tokens are about a hundred characters ("Validation: Testing client
// application reachability for subscription Request-Id: <uuid>").
const maxValidationToken = 512

// echoable reports whether a validation token is fit to be echoed to
// whoever sent it: printable ASCII without the characters that open markup
// or quote an attribute, which Graph's tokens never carry. The answer is
// text/plain with nosniff either way; this keeps a reflected page out of
// reach of a browser that ignores both.
func echoable(token string) bool {
	if len(token) > maxValidationToken {
		return false
	}
	for i := 0; i < len(token); i++ {
		c := token[i]
		if c < 0x20 || c > 0x7e || strings.IndexByte("<>&\"'`", c) >= 0 {
			return false
		}
	}
	return true
}

// msgraph checks Microsoft Graph change notifications: every notification
// in the body's value list must carry a clientState equal to one of the
// source's secrets (Graph signs nothing; clientState is the shared secret
// set on the subscription). Graph's validation request, a POST with an
// empty body and a validationToken query parameter, is answered with the
// token as text/plain; it carries no secret, so it is only checked for
// its shape, and it is never stored.
type msgraph struct {
	common
	states [][]byte // nil for an inactive slot
}

func newMSGraph(o Options, c common) (Scheme, error) {
	states := make([][]byte, len(o.Secrets))
	for i, s := range o.Secrets {
		if s != "" {
			states[i] = []byte(s)
		}
	}
	return &msgraph{common: c, states: states}, nil
}

func (*msgraph) Name() string { return "msgraph" }

// msgraphBody is the part of a notification batch the scheme reads.
type msgraphBody struct {
	Value []struct {
		ClientState    string `json:"clientState"`
		ChangeType     string `json:"changeType"`
		LifecycleEvent string `json:"lifecycleEvent"`
	} `json:"value"`
}

func (g *msgraph) Verify(req Request) (Result, error) {
	active := false
	for _, s := range g.states {
		active = active || s != nil
	}
	if !active {
		return failed(ErrNoSecret)
	}
	if token, ok, err := validationToken(req); ok || err != nil {
		if err != nil {
			return failed(err)
		}
		if len(req.Body) > 0 || !echoable(token) {
			return failed(fmt.Errorf("read validation request: a body, or a token that is too long or not printable ASCII: %w", ErrMalformedSignature))
		}
		return Result{Slot: store.NoSlot}, nil
	}
	var b msgraphBody
	if err := json.Unmarshal(req.Body, &b); err != nil || len(b.Value) == 0 {
		return failed(fmt.Errorf("read notifications: want a JSON object with a value list: %w", ErrMalformedSignature))
	}
	slot := -1
	for _, n := range b.Value {
		if n.ClientState == "" {
			return failed(fmt.Errorf("read clientState: %w", ErrMissingSignature))
		}
		s, ok := g.match(n.ClientState)
		if !ok {
			return untimed(0, false)
		}
		if slot < 0 {
			slot = s
		}
	}
	return untimed(slot, true)
}

// match returns the slot of the secret equal to state, comparing with
// every active secret in constant time.
func (g *msgraph) match(state string) (int, bool) {
	slot, found := 0, false
	for i, s := range g.states {
		if s != nil && subtle.ConstantTimeCompare(s, []byte(state)) == 1 && !found {
			slot, found = i, true
		}
	}
	return slot, found
}

// validationToken returns the validation token of a Graph validation
// request; ok is false for a notification.
func validationToken(req Request) (token string, ok bool, err error) {
	if req.RawQuery == "" {
		return "", false, nil
	}
	q, err := url.ParseQuery(req.RawQuery)
	if err != nil {
		return "", false, fmt.Errorf("read query: %w", ErrMalformedSignature)
	}
	if !q.Has(msgraphToken) {
		return "", false, nil
	}
	if token = q.Get(msgraphToken); token == "" {
		return "", false, fmt.Errorf("read %s: %w", msgraphToken, ErrMissingSignature)
	}
	return token, true, nil
}

// Identify hashes the body for the id (Graph gives notifications no id)
// and takes the first notification's changeType, or its lifecycleEvent,
// as the type.
func (g *msgraph) Identify(req Request) (Identity, error) {
	var id Identity
	var b msgraphBody
	if json.Unmarshal(req.Body, &b) == nil && len(b.Value) > 0 {
		id.Type = b.Value[0].ChangeType
		if id.Type == "" {
			id.Type = b.Value[0].LifecycleEvent
		}
	}
	return g.fields.complete(req, id, need{})
}

// Handshake answers a validation request with its token as text/plain.
func (g *msgraph) Handshake(req Request) (Handshake, bool) {
	token, ok, err := validationToken(req)
	if !ok || err != nil {
		return Handshake{}, false
	}
	return Handshake{Body: []byte(token), ContentType: "text/plain"}, true
}

// signRequest writes the secret in slot into every notification's
// clientState, as Graph does with the subscription's.
func (g *msgraph) signRequest(slot int, msg Message) (SignedRequest, error) {
	if slot < 0 || slot >= len(g.states) || g.states[slot] == nil {
		return SignedRequest{}, fmt.Errorf("secret slot %d: %w", slot, ErrNoSecret)
	}
	var b struct {
		Value []map[string]json.RawMessage `json:"value"`
	}
	if err := json.Unmarshal(msg.Body, &b); err != nil || len(b.Value) == 0 {
		return SignedRequest{}, fmt.Errorf("read the body: want a JSON object with a value list of notifications")
	}
	state, err := json.Marshal(string(g.states[slot]))
	if err != nil {
		return SignedRequest{}, err
	}
	for _, n := range b.Value {
		n["clientState"] = state
	}
	list, err := json.Marshal(b.Value)
	if err != nil {
		return SignedRequest{}, err
	}
	body, err := setBodyField(msg.Body, "value", list)
	if err != nil {
		return SignedRequest{}, err
	}
	return SignedRequest{Header: jsonHeader(), Body: body}, nil
}
