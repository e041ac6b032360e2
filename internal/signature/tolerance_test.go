package signature

import (
	"errors"
	"testing"
	"time"
)

// TestDefaultToleranceOf pins each scheme's default tolerance to its
// provider's own library's: every scheme of Names() is listed, so a new
// one must say what its provider allows.
func TestDefaultToleranceOf(t *testing.T) {
	t.Parallel()
	want := map[string]time.Duration{
		"stripe": 300 * time.Second, "standard": 300 * time.Second, "slack": 300 * time.Second,
		"paddle": 5 * time.Second, "linear": 60 * time.Second,
		"discord": 300 * time.Second, "sendgrid": 300 * time.Second, "zoom": 300 * time.Second,
		"mailgun": 300 * time.Second, "hmac": 300 * time.Second,
		// These sign no time; the tolerance is never applied.
		"github": DefaultTolerance, "shopify": DefaultTolerance, "gitlab": DefaultTolerance,
		"none": DefaultTolerance, "twilio": DefaultTolerance, "meta": DefaultTolerance,
		"square": DefaultTolerance, "intercom": DefaultTolerance, "msgraph": DefaultTolerance,
	}
	if len(Names()) != 19 {
		t.Errorf("%d schemes; this table knows 19", len(Names()))
	}
	for _, name := range Names() {
		w, ok := want[name]
		if !ok {
			t.Errorf("scheme %s: no default tolerance pinned", name)
			continue
		}
		if got := DefaultToleranceOf(name); got != w {
			t.Errorf("DefaultToleranceOf(%s) = %s; want %s", name, got, w)
		}
	}
}

// TestDefaultToleranceApplied signs a request of every scheme that signs a
// time just inside and just outside its default tolerance, in both
// directions, with no tolerance configured.
func TestDefaultToleranceApplied(t *testing.T) {
	t.Parallel()
	timed := []schemeCase{
		stripeCase, standardCase, standardV1aCase, slackCase, paddleCase, linearCase,
		discordCase, sendgridCase, zoomCase,
		{opts: Options{Scheme: "mailgun"}, secret: plainSecret},
		{opts: Options{Scheme: "hmac", HMAC: HMACOptions{Header: "X-Sig", TimestampHeader: "X-Ts"}}, secret: plainSecret},
	}
	for _, sc := range timed {
		name := sc.opts.Scheme
		if sc.publicKey != nil {
			name += "-public-key"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			def := DefaultToleranceOf(sc.opts.Scheme)
			for _, c := range []struct {
				skew  time.Duration
				stale bool
			}{
				{def - time.Second, false}, {-(def - time.Second), false},
				{def + time.Second, true}, {-(def + time.Second), true},
			} {
				o := sc.with("a")
				if o.Tolerance != 0 {
					t.Fatalf("case sets tolerance %s", o.Tolerance)
				}
				_, err := verify(t, o, sc.signed(t, []string{"a"}, 0, []byte(`{"id":"evt_1","type":"invoice.paid"}`), testNow.Add(-c.skew)))
				if c.stale != errors.Is(err, ErrStale) || (!c.stale && err != nil) {
					t.Errorf("signed %s before now, default tolerance %s: Verify = %v", c.skew, def, err)
				}
			}
		})
	}
}
