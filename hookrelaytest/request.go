package hookrelaytest

import (
	"bytes"
	"fmt"
	"net/http"
	"net/url"

	"github.com/hookrelay/hookrelay"
	"github.com/hookrelay/hookrelay/internal/signature"
)

// SignedRequest returns a POST of ev to target, a URL at which the
// application serves r's Receiver (or ReceiverFor), signed as the
// provider of ev.Source signs it: with the scheme and the first secret of
// that source in r's Config, its Sources or its File. The request carries
// ev.Header, ev.ContentType, and the headers the scheme signs with and
// reads the event's id and type from (ev.ProviderEventID and ev.Type, for
// GitHub's X-GitHub-Delivery and X-GitHub-Event, Standard Webhooks'
// webhook-id, …); the signature's time is ev.ReceivedAt, or now when it is
// zero. Its body is ev.Body, or, for the providers that write their
// signature or send time into the body (mailgun, msgraph, linear), ev.Body
// with it written in.
//
// It returns an error when r has no source named ev.Source, or for a
// scheme that signs with the provider's private key alone (discord,
// sendgrid), which a test does not have.
func SignedRequest(r *hookrelay.Relay, target string, ev hookrelay.Event) (*http.Request, error) {
	cfg, err := bridge.Config(r)
	if err != nil {
		return nil, fmt.Errorf("hookrelaytest: %w", err)
	}
	src, ok := cfg.Source(ev.Source)
	if !ok {
		return nil, fmt.Errorf("hookrelaytest: the relay has no source %q", ev.Source)
	}
	signed, err := signature.SignRequest(src.SchemeOptions(), 0, signature.Message{
		ID: ev.ProviderEventID, Type: ev.Type, Body: ev.Body, Now: ev.ReceivedAt,
	})
	if err != nil {
		return nil, fmt.Errorf("hookrelaytest: source %s: %w", ev.Source, err)
	}
	u, err := url.Parse(target)
	if err != nil {
		return nil, fmt.Errorf("hookrelaytest: %w", err)
	}
	if signed.RawQuery != "" {
		if u.RawQuery != "" {
			u.RawQuery += "&"
		}
		u.RawQuery += signed.RawQuery
	}
	req, err := http.NewRequest(http.MethodPost, u.String(), bytes.NewReader(signed.Body))
	if err != nil {
		return nil, fmt.Errorf("hookrelaytest: %w", err)
	}
	req.Header = ev.Header.Clone()
	if req.Header == nil {
		req.Header = http.Header{}
	}
	if ev.ContentType != "" {
		req.Header.Set("Content-Type", ev.ContentType)
	}
	for k, v := range signed.Header {
		req.Header[k] = v
	}
	return req, nil
}
