package receiver_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/hookrelay/hookrelay/internal/groupcommit"
	"github.com/hookrelay/hookrelay/internal/receiver"
	"github.com/hookrelay/hookrelay/internal/store"
	"github.com/hookrelay/hookrelay/internal/store/storeopen"
	"github.com/hookrelay/hookrelay/internal/testkit"
	"github.com/hookrelay/hookrelay/internal/testkit/testdb"
)

// ingestDeps is what every receiver under test commits through: a real,
// migrated database of one driver, its group committer, rejection
// recorder and metrics, all closed when the test ends.
type ingestDeps struct {
	logger     *slog.Logger
	store      store.DB
	registry   *prometheus.Registry
	metrics    *receiver.Metrics
	committer  *groupcommit.Committer
	rejections *receiver.RejectionRecorder
}

func newIngestDeps(t *testing.T, driver testdb.Driver) ingestDeps {
	t.Helper()
	ctx := context.Background()
	logger := slog.New(slog.NewJSONHandler(io.Discard, nil))
	st, err := storeopen.Open(ctx, driver.URL(t), logger)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	registry := prometheus.NewRegistry()
	metrics := receiver.NewMetrics(registry)
	committer := groupcommit.New(st, groupcommit.Options{}, logger)
	t.Cleanup(committer.Close)
	rejections := receiver.NewRejectionRecorder(st, receiver.RejectionOptions{}, metrics, logger)
	t.Cleanup(rejections.Close)
	return ingestDeps{logger: logger, store: st, registry: registry, metrics: metrics, committer: committer, rejections: rejections}
}

// waitInflight waits until the receiver is handling n requests, as its
// hookrelay_ingest_inflight_requests gauge counts them: each has had its
// head read and is reading its body.
func waitInflight(t *testing.T, reg *prometheus.Registry, n int) {
	t.Helper()
	testkit.Eventually(t, 10*time.Second, fmt.Sprintf("%d requests being handled", n), func() error {
		families, err := reg.Gather()
		if err != nil {
			return err
		}
		var got float64
		for _, f := range families {
			if f.GetName() == "hookrelay_ingest_inflight_requests" {
				got = f.GetMetric()[0].GetGauge().GetValue()
			}
		}
		return testkit.Check(got == float64(n), "%v being handled", got)
	})
}
