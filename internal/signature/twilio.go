package signature

import (
	"crypto/sha1"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"slices"
	"strings"
)

// Twilio's headers and the query parameter of a signed JSON body.
var (
	twilioSignature   = http.CanonicalHeaderKey("X-Twilio-Signature")
	twilioIdempotency = http.CanonicalHeaderKey("I-Twilio-Idempotency-Token")
)

const twilioBodyHash = "bodySHA256"

// twilio verifies "X-Twilio-Signature: <base64>", the HMAC-SHA1 keyed with
// the auth token of the full URL Twilio called followed, for a form body,
// by every parameter name and value, sorted. A JSON body is signed through
// the URL instead: its query carries bodySHA256, the hex SHA-256 of the
// body. The URL is the configured public_url plus the query the request
// arrived with; like Twilio's own validators, the scheme accepts it with
// and without the scheme's default port, which proxies add or drop.
type twilio struct {
	common
	noHandshake
	keys keyring
	// bases are public_url as configured, then with its port removed or
	// the default one added, when that differs.
	bases []string
}

func newTwilio(o Options, c common) (Scheme, error) {
	if o.PublicURL == "" {
		return nil, errors.New("twilio: public_url is required (the URL Twilio signs)")
	}
	u, err := url.Parse(o.PublicURL)
	if err != nil || u.Host == "" {
		return nil, fmt.Errorf("twilio: public_url %q is not an absolute URL", o.PublicURL)
	}
	keys, err := newKeyring(o.Secrets, sha1.New, nil)
	if err != nil {
		return nil, err
	}
	bases := []string{o.PublicURL}
	for _, host := range twilioHosts(u) {
		v := *u
		v.Host = host
		if s := v.String(); !slices.Contains(bases, s) {
			bases = append(bases, s)
		}
	}
	return &twilio{common: c, keys: keys, bases: bases}, nil
}

// twilioHosts returns u's host without its port and with the scheme's
// default port.
func twilioHosts(u *url.URL) []string {
	hosts := []string{strings.TrimSuffix(u.Host, ":"+u.Port())}
	if u.Port() == "" {
		switch u.Scheme {
		case "https":
			hosts = append(hosts, u.Host+":443")
		case "http":
			hosts = append(hosts, u.Host+":80")
		}
	}
	return hosts
}

func (*twilio) Name() string { return "twilio" }

func (tw *twilio) Verify(req Request) (Result, error) {
	if !tw.keys.active() {
		return failed(ErrNoSecret)
	}
	sig, err := required(req.Header, twilioSignature)
	if err != nil {
		return failed(err)
	}
	query, err := url.ParseQuery(req.RawQuery)
	if err != nil {
		return failed(fmt.Errorf("read query: %w", ErrMalformedSignature))
	}
	var params string
	// covered tells whether the signature covers the body: through its
	// hash in the query or its parameters.
	covered := true
	if hash := query.Get(twilioBodyHash); hash != "" {
		sum := sha256.Sum256(req.Body)
		if subtle.ConstantTimeCompare([]byte(strings.ToLower(hash)), []byte(hex.EncodeToString(sum[:]))) != 1 {
			return untimed(0, false)
		}
	} else if isForm(req.Header) {
		form, err := url.ParseQuery(string(req.Body))
		if err != nil {
			return failed(fmt.Errorf("read form body: %w", ErrMalformedSignature))
		}
		params = twilioParams(form)
	} else {
		covered = false
	}
	for _, base := range tw.bases {
		signed := []byte(twilioURL(base, req.RawQuery) + params)
		slot, mac, ok := tw.keys.matchMAC(bodyOnly, &content{body: signed}, base64Encoding, []string{sig})
		if !ok {
			continue
		}
		// Nothing in what Twilio signs changes between deliveries: a
		// captured request verifies under any idempotency token.
		res, err := bodySigned(slot, mac, true)
		if covered {
			res.SignedContent = signed
		}
		res.SignedQuery = req.RawQuery
		return res, err
	}
	return untimed(0, false)
}

// twilioURL is the URL Twilio called: base with the request's query.
func twilioURL(base, rawQuery string) string {
	switch {
	case rawQuery == "":
		return base
	case strings.Contains(base, "?"):
		return base + "&" + rawQuery
	}
	return base + "?" + rawQuery
}

// twilioParams writes each form parameter as name then value, names
// sorted and each name's distinct values sorted, as Twilio signs them.
func twilioParams(form url.Values) string {
	var b strings.Builder
	for _, name := range slices.Sorted(func(yield func(string) bool) {
		for k := range form {
			if !yield(k) {
				return
			}
		}
	}) {
		values := slices.Clone(form[name])
		slices.Sort(values)
		for _, v := range slices.Compact(values) {
			b.WriteString(name)
			b.WriteString(v)
		}
	}
	return b.String()
}

// isForm reports whether the request's body is form-encoded.
func isForm(h http.Header) bool {
	mt, _, err := mime.ParseMediaType(h.Get("Content-Type"))
	return err == nil && mt == "application/x-www-form-urlencoded"
}

// Identify reads the id from I-Twilio-Idempotency-Token, the same on
// every retry of a webhook, and the type from the form's MessageStatus or
// CallStatus.
func (tw *twilio) Identify(req Request) (Identity, error) {
	var id Identity
	id.ID, id.Origin = headerID(req.Header.Get(twilioIdempotency))
	if isForm(req.Header) {
		if form, err := url.ParseQuery(string(req.Body)); err == nil {
			id.Type = form.Get("MessageStatus")
			if id.Type == "" {
				id.Type = form.Get("CallStatus")
			}
		}
	}
	return tw.fields.complete(req, id, need{})
}

// signRequest signs msg as Twilio would post it to public_url: a JSON body
// through the bodySHA256 query parameter, any other body as a form.
func (tw *twilio) signRequest(slot int, msg Message) (SignedRequest, error) {
	r := SignedRequest{Header: http.Header{}, Body: msg.Body}
	var params string
	if json.Valid(msg.Body) {
		sum := sha256.Sum256(msg.Body)
		r.RawQuery = twilioBodyHash + "=" + hex.EncodeToString(sum[:])
		r.Header.Set("Content-Type", "application/json")
	} else {
		form, err := url.ParseQuery(string(msg.Body))
		if err != nil {
			return SignedRequest{}, fmt.Errorf("read the body as a form: %w", err)
		}
		params = twilioParams(form)
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	signed := twilioURL(tw.bases[0], r.RawQuery) + params
	sig, err := tw.keys.sign(slot, bodyOnly, &content{body: []byte(signed)}, base64Encoding)
	if err != nil {
		return SignedRequest{}, err
	}
	r.Header.Set(twilioSignature, sig)
	setIf(r.Header, twilioIdempotency, msg.ID)
	return r, nil
}
