package signature

import "time"

// DefaultTolerance is how far a signed timestamp may be from now when
// Options.Tolerance is zero and the scheme's provider sets no tolerance of
// its own (see DefaultToleranceOf).
const DefaultTolerance = 5 * time.Minute

// providerTolerances is the tolerance of each scheme whose provider signs a
// time, as the provider's own library applies it by default. A scheme
// absent here signs no time (github, shopify, gitlab, twilio, meta,
// square, intercom, msgraph, none): its tolerance is never applied.
var providerTolerances = map[string]time.Duration{
	// stripe-node Webhook.DEFAULT_TOLERANCE, 300 s.
	"stripe": 5 * time.Minute,
	// standardwebhooks and svix WEBHOOK_TOLERANCE_IN_SECONDS, 5 * 60.
	"standard": 5 * time.Minute,
	// @slack/bolt verifySlackRequest, requestTimestampMaxDeltaMin = 5.
	"slack": 5 * time.Minute,
	// @paddle/paddle-node-sdk WebhooksValidator.MAX_VALID_TIME_DIFFERENCE,
	// 5 s.
	"paddle": 5 * time.Second,
	// @linear/sdk LinearWebhookClient.verify, 60 s on webhookTimestamp.
	"linear": time.Minute,
	// The official libraries of these check the signature only, not the
	// time (discord-interactions verifyKey, @sendgrid/eventwebhook
	// verifySignature, @zoom/rivet's receivers), and Mailgun has none: the
	// relay keeps its own 5 minutes rather than none at all, so that a
	// captured request cannot be replayed for ever.
	"discord":  DefaultTolerance,
	"sendgrid": DefaultTolerance,
	"zoom":     DefaultTolerance,
	"mailgun":  DefaultTolerance,
	// The generic scheme has no provider; it applies the relay's own.
	"hmac": DefaultTolerance,
}

// DefaultToleranceOf returns the tolerance the scheme named scheme applies
// when Options.Tolerance is zero: its provider's own library's default
// where it has one (Linear one minute, Paddle five seconds), otherwise
// DefaultTolerance.
func DefaultToleranceOf(scheme string) time.Duration {
	if d, ok := providerTolerances[scheme]; ok {
		return d
	}
	return DefaultTolerance
}
