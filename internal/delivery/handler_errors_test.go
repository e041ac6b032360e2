package delivery

import (
	"errors"
	"fmt"
	"testing"
	"time"
)

func TestVerdictOf(t *testing.T) {
	t.Parallel()
	boom := errors.New("boom")
	for _, tt := range []struct {
		name  string
		err   error
		want  verdict
		after time.Duration
	}{
		{"plain error", boom, verdictFail, 0},
		{"skip", ErrSkip, verdictSkip, 0},
		{"wrapped skip", fmt.Errorf("stale: %w", ErrSkip), verdictSkip, 0},
		{"permanent", Permanent(boom), verdictPermanent, 0},
		{"wrapped permanent", fmt.Errorf("look up: %w", Permanent(boom)), verdictPermanent, 0},
		{"permanent of nil", Permanent(nil), verdictPermanent, 0},
		{"snooze", Snooze(time.Minute), verdictSnooze, time.Minute},
		{"wrapped snooze", fmt.Errorf("not yet: %w", Snooze(time.Second)), verdictSnooze, time.Second},
		{"negative snooze", Snooze(-time.Second), verdictSnooze, 0},
		{"skip wins over snooze", errors.Join(Snooze(time.Second), ErrSkip), verdictSkip, 0},
		{"snooze wins over permanent", errors.Join(Permanent(boom), Snooze(time.Second)), verdictSnooze, time.Second},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, after := verdictOf(tt.err)
			if got != tt.want || after != tt.after {
				t.Errorf("verdictOf(%v) = %d, %s; want %d, %s", tt.err, got, after, tt.want, tt.after)
			}
		})
	}
	if got := Permanent(boom).Error(); got != "boom" {
		t.Errorf("Permanent(boom).Error() = %q, want the wrapped text", got)
	}
	if !errors.Is(Permanent(boom), boom) {
		t.Error("Permanent(boom) does not wrap boom")
	}
}
