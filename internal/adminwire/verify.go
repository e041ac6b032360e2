package adminwire

import "time"

// Verification is the answer of POST /api/v1/events/{id}/verify.
type Verification struct {
	Valid bool `json:"valid"`
	// Slot is the secret slot that matched, or null.
	Slot *int `json:"slot"`
	// SkewSeconds is how long after the signed timestamp the event was
	// received (negative when the timestamp lies ahead); null when the
	// scheme signs no timestamp.
	SkewSeconds *float64 `json:"skew_seconds"`
	// Reason says why the event does not verify, or what is worth knowing
	// about one that does.
	Reason string `json:"reason"`
	// Scheme is the source's scheme as configured now.
	Scheme string `json:"scheme"`
	// SignedAt is the signed timestamp, or null.
	SignedAt *time.Time `json:"signed_at"`
	// ToleranceSeconds is the source's tolerance: reported, not applied.
	ToleranceSeconds float64 `json:"tolerance_seconds"`
	// WithinTolerance tells whether the skew was within the tolerance.
	WithinTolerance bool `json:"within_tolerance"`
}
