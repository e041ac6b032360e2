package signature

import (
	"crypto/sha256"
	"net/http"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
)

// Shopify's headers.
const (
	shopifyHMAC        = "X-Shopify-Hmac-Sha256"
	shopifyWebhookID   = "X-Shopify-Webhook-Id"
	shopifyEventID     = "X-Shopify-Event-Id"
	shopifyTopic       = "X-Shopify-Topic"
	shopifyTriggeredAt = "X-Shopify-Triggered-At"
)

// shopify verifies "X-Shopify-Hmac-Sha256: <base64>", the HMAC-SHA256 of
// the body keyed with the app's client secret. Shopify signs no timestamp.
type shopify struct {
	common
	noHandshake
	keys keyring
}

func newShopify(o Options, c common) (Scheme, error) {
	keys, err := newKeyring(o.Secrets, sha256.New, nil)
	if err != nil {
		return nil, err
	}
	return &shopify{common: c, keys: keys}, nil
}

func (*shopify) Name() string { return "shopify" }

func (s *shopify) Verify(req Request) (Result, error) {
	if !s.keys.active() {
		return failed(ErrNoSecret)
	}
	sig, err := required(req.Header, shopifyHMAC)
	if err != nil {
		return failed(err)
	}
	slot, mac, ok := s.keys.matchMAC(bodyOnly, &content{body: req.Body}, base64Encoding, []string{sig})
	return bodySigned(slot, mac, ok)
}

// Identify uses X-Shopify-Webhook-Id, which is unique per webhook and the
// same on every retry of it. X-Shopify-Event-Id alone would collapse the
// webhooks of different topics that one merchant action triggers, so
// without a webhook id the event id is qualified by the topic. The type is
// the topic; occurred_at is X-Shopify-Triggered-At.
func (s *shopify) Identify(req Request) (Identity, error) {
	h := req.Header
	var id Identity
	id.Type = h.Get(shopifyTopic)
	id.ID, id.Origin = headerID(h.Get(shopifyWebhookID))
	if ev := h.Get(shopifyEventID); id.ID == "" && ev != "" && id.Type != "" {
		id.ID, id.Origin = ev+":"+id.Type, store.IDFromHeader
	}
	id.OccurredAt = parseRFC3339(h.Get(shopifyTriggeredAt))
	return s.fields.complete(req, id, need{})
}

func (s *shopify) sign(slot int, msg Message) (http.Header, error) {
	sig, err := s.keys.sign(slot, bodyOnly, &content{body: msg.Body}, base64Encoding)
	if err != nil {
		return nil, err
	}
	h := http.Header{}
	h.Set(shopifyHMAC, sig)
	setIf(h, shopifyWebhookID, msg.ID)
	setIf(h, shopifyTopic, msg.Type)
	h.Set(shopifyTriggeredAt, msg.now().UTC().Format(time.RFC3339Nano))
	return h, nil
}
