package delivery_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/delivery"
	"github.com/hookrelay/hookrelay/internal/store"
)

func TestReadAnswer(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	tests := []struct {
		status         int
		outcome, retry string
		want           store.DeliveryStatus
		wantReason     string
		wantRetryAfter time.Duration
	}{
		{200, "", "", store.StatusDone, "", 0},
		{204, "", "", store.StatusDone, "", 0},
		{202, " Skipped ", "", store.StatusSkipped, "", 0},
		{200, "", "30", store.StatusDone, "", 0},
		{409, "skipped", "", store.StatusFailed, "status 409", 0},
		{302, "", "30", store.StatusFailed, "status 302: redirect not followed", 0},
		{500, "", "", store.StatusFailed, "status 500", 0},
		{404, "", "", store.StatusFailed, "status 404", 0},
		{503, "", "30", store.StatusFailed, "status 503", 30 * time.Second},
		{429, "", now.Add(time.Minute).Format(http.TimeFormat), store.StatusFailed, "status 429", time.Minute},
	}
	for _, tt := range tests {
		h := http.Header{}
		if tt.outcome != "" {
			h.Set("hookrelay-outcome", tt.outcome)
		}
		if tt.retry != "" {
			h.Set("Retry-After", tt.retry)
		}
		got := delivery.ReadAnswer(tt.status, h, now)
		if got != (delivery.Verdict{Outcome: tt.want, Reason: tt.wantReason, RetryAfter: tt.wantRetryAfter}) {
			t.Errorf("ReadAnswer(%d, outcome %q, retry-after %q) = %+v; want %s, %q, %s",
				tt.status, tt.outcome, tt.retry, got, tt.want, tt.wantReason, tt.wantRetryAfter)
		}
	}
}
