package adminapi

import (
	"context"
	"math"
	"slices"

	"github.com/hookrelay/hookrelay/internal/adminwire"
)

// lagSample is how many of a source's newest events the stats' provider
// lag looks at.
const lagSample = 100

// addProviderLag sets each source's provider lag in out from its newest
// events: the median and the largest receive time minus provider time.
// Sources whose scheme gives no provider time keep nil.
func (s *Service) addProviderLag(ctx context.Context, out map[string]adminwire.SourceStats) error {
	for name, src := range out {
		times, err := s.store.RecentEventTimes(ctx, name, lagSample)
		if err != nil {
			return err
		}
		if len(times) == 0 {
			continue
		}
		lags := make([]float64, len(times))
		for i, t := range times {
			lags[i] = t.ReceivedAt.Sub(t.OccurredAt).Seconds()
		}
		slices.Sort(lags)
		median, largest := roundMS(lags[len(lags)/2]), roundMS(lags[len(lags)-1])
		src.ProviderLagSeconds, src.ProviderLagMaxSeconds = &median, &largest
		out[name] = src
	}
	return nil
}

func roundMS(s float64) float64 { return math.Round(s*1000) / 1000 }
