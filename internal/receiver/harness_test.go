package receiver_test

import (
	"context"
	"io"
	"log/slog"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/hookrelay/hookrelay/internal/groupcommit"
	"github.com/hookrelay/hookrelay/internal/receiver"
	"github.com/hookrelay/hookrelay/internal/store"
	"github.com/hookrelay/hookrelay/internal/store/storeopen"
	"github.com/hookrelay/hookrelay/internal/testkit/testdb"
)

// ingestDeps is what every receiver under test commits through: a real,
// migrated database of one driver, its group committer, rejection
// recorder and metrics, all closed when the test ends.
type ingestDeps struct {
	logger     *slog.Logger
	store      store.DB
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
	metrics := receiver.NewMetrics(prometheus.NewRegistry())
	committer := groupcommit.New(st, groupcommit.Options{}, logger)
	t.Cleanup(committer.Close)
	rejections := receiver.NewRejectionRecorder(st, receiver.RejectionOptions{}, metrics, logger)
	t.Cleanup(rejections.Close)
	return ingestDeps{logger: logger, store: st, metrics: metrics, committer: committer, rejections: rejections}
}
