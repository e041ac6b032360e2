package loadgen

import (
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/hookrelay/hookrelay/internal/signature"
)

// Request is one request a generator sends: the body and the headers that go
// with it. A generator never modifies either.
type Request struct {
	Body   []byte
	Header http.Header
}

// Feed supplies the requests of a run. The i-th request of a run is always
// the same event, so two targets driven by the same feed receive the same
// bodies.
type Feed interface {
	// Stream returns a source of requests for one sender goroutine.
	Stream() Stream
}

// Stream returns requests by index. A Stream is used by one goroutine only.
type Stream interface {
	// Request returns the i-th request of the run, i counted from 0.
	Request(i int64) Request
}

// eventTypes are the types the Stripe feed cycles through.
var eventTypes = []string{
	"invoice.paid",
	"customer.subscription.updated",
	"payment_intent.succeeded",
	"charge.refunded",
}

// idDigits is the width of the counter in an event id: "evt_" and 20 digits.
const idDigits = 20

// StripeFeed makes Stripe-shaped JSON events of a fixed size, each with the
// unique id "evt_<counter>", signed with one secret by signature.Sign as
// Stripe signs: Stripe-Signature: t=<unix>,v1=<hex HMAC-SHA256 of "t.body">.
type StripeFeed struct {
	opts      signature.Options
	templates [][]byte // one body per event type, id digits zeroed
	idAt      []int    // offset of the id digits in each template
	now       func() time.Time
	prebuilt  []Request
}

// NewStripeFeed returns a feed of size-byte bodies signed with secret. size
// is raised to the smallest body that holds the event's fields.
func NewStripeFeed(secret string, size int) (*StripeFeed, error) {
	if secret == "" {
		return nil, errors.New("make stripe feed: empty secret")
	}
	f := &StripeFeed{opts: signature.Options{Scheme: "stripe", Secrets: []string{secret}}, now: time.Now}
	if _, err := signature.New(f.opts); err != nil {
		return nil, fmt.Errorf("make stripe feed: %w", err)
	}
	for _, typ := range eventTypes {
		body, _ := stripeTemplate(typ, 0)
		size = max(size, len(body))
	}
	for _, typ := range eventTypes {
		body, at := stripeTemplate(typ, size)
		f.templates = append(f.templates, body)
		f.idAt = append(f.idAt, at)
	}
	return f, nil
}

// stripeTemplate returns an event body of at least size bytes whose id is
// idDigits zeros, and the offset of those digits.
func stripeTemplate(typ string, size int) ([]byte, int) {
	const head = `{"id":"evt_`
	zeros := fmt.Sprintf("%0*d", idDigits, 0)
	pre := head + zeros + `","object":"event","api_version":"2024-06-20","created":1700000000,` +
		`"type":"` + typ + `","livemode":false,"pending_webhooks":1,` +
		`"request":{"id":null,"idempotency_key":null},` +
		`"data":{"object":{"id":"in_1PbenchInvoice","object":"invoice","customer":"cus_Pbench",` +
		`"amount_paid":1999,"currency":"usd","description":"`
	post := `"}}}`
	pad := max(size-len(pre)-len(post), 0)
	b := make([]byte, 0, len(pre)+pad+len(post))
	b = append(b, pre...)
	for i := range pad {
		b = append(b, 'a'+byte(i%26))
	}
	b = append(b, post...)
	return b, len(head)
}

// Size returns the length of every body the feed makes.
func (f *StripeFeed) Size() int { return len(f.templates[0]) }

// Prebuild signs the first n requests now, so that a run spends no time
// building them. Requests past n are built when asked for.
func (f *StripeFeed) Prebuild(n int) {
	f.prebuilt = make([]Request, n)
	for i := range n {
		f.prebuilt[i] = f.build(int64(i))
	}
}

// Stream returns a source of requests for one sender.
func (f *StripeFeed) Stream() Stream { return stripeStream{f} }

type stripeStream struct{ feed *StripeFeed }

func (s stripeStream) Request(i int64) Request {
	if i < int64(len(s.feed.prebuilt)) {
		return s.feed.prebuilt[i]
	}
	return s.feed.build(i)
}

// build makes the i-th request in a new body, so a body handed to an HTTP
// transport is never written again.
func (f *StripeFeed) build(i int64) Request {
	k := int(i % int64(len(f.templates)))
	body := append([]byte(nil), f.templates[k]...)
	putDigits(body[f.idAt[k]:f.idAt[k]+idDigits], i)
	h, err := signature.Sign(f.opts, 0, signature.Message{Body: body, Now: f.now()})
	if err != nil {
		// NewStripeFeed built the scheme from the same options.
		panic(fmt.Sprintf("sign stripe event: %v", err))
	}
	h.Set("Content-Type", "application/json")
	return Request{Body: body, Header: h}
}

// putDigits writes n into dst in decimal, zero-padded to len(dst).
func putDigits(dst []byte, n int64) {
	for j := len(dst) - 1; j >= 0; j-- {
		dst[j] = '0' + byte(n%10)
		n /= 10
	}
}

// EventID returns the provider event id of the i-th request of a StripeFeed.
func EventID(i int64) string {
	return fmt.Sprintf("evt_%0*d", idDigits, i)
}
