package signature

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
)

// SignedRequest is a request as a provider would send it.
type SignedRequest struct {
	Header http.Header
	// Body is what to send: the message's body, unless the provider writes
	// its signature or send time into the body (mailgun, msgraph, linear).
	Body []byte
	// RawQuery, when not empty, is added to the request URL's query
	// (twilio's bodySHA256).
	RawQuery string
}

// requestSigner is implemented by the schemes that sign more than headers:
// they change the body or the URL.
type requestSigner interface {
	signRequest(slot int, msg Message) (SignedRequest, error)
}

// SignRequest returns the request the provider would send for msg, signed
// with the secret in o.Secrets[slot] or, for the public-key schemes, with
// msg.Key. Unlike Sign it also returns the body and query to send, which a
// few providers change.
func SignRequest(o Options, slot int, msg Message) (SignedRequest, error) {
	s, err := New(o)
	if err != nil {
		return SignedRequest{}, err
	}
	var r SignedRequest
	if rs, ok := s.(requestSigner); ok {
		r, err = rs.signRequest(slot, msg)
	} else {
		r.Body = msg.Body
		r.Header, err = s.(signer).sign(slot, msg)
	}
	if err != nil {
		return SignedRequest{}, fmt.Errorf("sign for %s: %w", o.Scheme, err)
	}
	return r, nil
}

// setBodyField returns the JSON object body with its top-level field set
// to the JSON text value; the other members keep their bytes.
func setBodyField(body []byte, field string, value json.RawMessage) ([]byte, error) {
	var members map[string]json.RawMessage
	if err := json.Unmarshal(body, &members); err != nil {
		return nil, fmt.Errorf("read body as a JSON object: %w", err)
	}
	if members == nil {
		members = map[string]json.RawMessage{}
	}
	members[field] = value
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(members); err != nil {
		return nil, fmt.Errorf("write body: %w", err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// jsonHeader is the header of a JSON body.
func jsonHeader() http.Header {
	return http.Header{"Content-Type": []string{"application/json"}}
}
