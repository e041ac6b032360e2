package receiver

import (
	"log/slog"
	"time"
)

// Limits are the bounds every receiver of a relay shares: the cap on
// requests verified and stored at once, the memory bodies may take, and
// the unread bodies one peer address may hold. A reload builds a new
// Receiver over the same Limits, so that the retired receiver's requests
// in flight and the new one's draw on one budget instead of one each.
type Limits struct {
	slots  chan struct{}
	budget *bodyBudget
	peers  *peerTable
}

// LimitOptions configure Limits; a zero field takes its default.
type LimitOptions struct {
	// MaxConcurrency caps requests verified and stored at once; beyond it
	// the answer is 503 with Retry-After. A request takes its place only
	// once its body has been read. Default 512.
	MaxConcurrency int
	// MaxInflightBytes caps the body bytes held in memory at once. Default
	// 64 MiB.
	MaxInflightBytes int64
	// BudgetWait is how long a request may wait for body memory before it
	// is answered 503. Default 5s.
	BudgetWait time.Duration
	// MaxUnreadPerPeer caps the bodies one peer address may have arriving
	// at once before they take from the budget (their first 16 KiB); a
	// request beyond it sheds that peer's slowest one. Default
	// DefaultMaxUnreadPerPeer.
	MaxUnreadPerPeer int
}

// DefaultMaxUnreadPerPeer is how many bodies one peer address may be
// sending at once by default: more than a provider's delivery workers.
const DefaultMaxUnreadPerPeer = 256

// NewLimits returns the Limits o describes.
func NewLimits(o LimitOptions, logger *slog.Logger) *Limits {
	if o.MaxConcurrency <= 0 {
		o.MaxConcurrency = 512
	}
	if o.MaxInflightBytes <= 0 {
		o.MaxInflightBytes = 64 << 20
	}
	if o.BudgetWait <= 0 {
		o.BudgetWait = 5 * time.Second
	}
	if o.MaxUnreadPerPeer <= 0 {
		o.MaxUnreadPerPeer = DefaultMaxUnreadPerPeer
	}
	return &Limits{
		slots:  make(chan struct{}, o.MaxConcurrency),
		budget: newBodyBudget(o.MaxInflightBytes, o.BudgetWait),
		peers:  newPeerTable(o.MaxUnreadPerPeer, logger),
	}
}
