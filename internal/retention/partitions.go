package retention

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
)

// maintain creates the partitions ahead and drops those past the longer
// retention (none when either keeps events forever), logs what it did,
// and returns, with the error of the maintenance if it failed, req with the bound of each rule whose retention is the
// longer one moved back to the start of its period: what is older lies
// in partitions the drop just took, or in one a live delivery keeps,
// whose finished events the row-level prune still deletes.
func (p *Pruner) maintain(ctx context.Context, now time.Time, req store.PruneRequest) (store.PruneRequest, error) {
	period := p.opts.Period
	preq := store.PartitionRequest{Period: period, Now: now}
	longer := max(p.opts.Done, p.opts.Dead)
	forever := p.opts.Done <= 0 || p.opts.Dead <= 0
	if !forever {
		preq.DropBefore = now.Add(-longer)
	}
	report, err := p.opts.Partitions.MaintainPartitions(ctx, preq)
	p.logReport(report, now)
	if err != nil {
		err = fmt.Errorf("maintain partitions: %w", err)
	}
	if forever {
		return req, err
	}
	if p.opts.Done == longer {
		req.DoneBefore = period.Start(req.DoneBefore)
	}
	if p.opts.Dead == longer {
		req.DeadBefore = period.Start(req.DeadBefore)
	}
	return req, err
}

// logReport logs the partitions a pass created and dropped, and those
// that live deliveries keep past the retention, each at most once every
// waitingRepeat.
func (p *Pruner) logReport(report store.PartitionReport, now time.Time) {
	if len(report.Created) > 0 {
		names := make([]string, len(report.Created))
		for i, c := range report.Created {
			names[i] = c.Name
		}
		p.logger.Info("partitions created", logPartition, strings.Join(names, ","))
	}
	for _, d := range report.Dropped {
		p.logger.Info("partition dropped", logPartition, d.Name, logEvents, d.Events, logDeliveries, d.Deliveries, logLocked, d.Locked)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, w := range report.Waiting {
		if last, ok := p.warned[w.Name]; ok && now.Sub(last) < waitingRepeat {
			continue
		}
		p.warned[w.Name] = now
		p.logger.Warn("partition past its retention kept by live deliveries", logPartition, w.Name, logLive, live(w.Live))
	}
}

// live writes the counts of live deliveries as destination:status=n, in
// order.
func live(counts map[string]map[store.DeliveryStatus]int64) string {
	var parts []string
	for _, dest := range slices.Sorted(maps.Keys(counts)) {
		for _, status := range slices.Sorted(maps.Keys(counts[dest])) {
			parts = append(parts, fmt.Sprintf("%s:%s=%d", dest, status, counts[dest][status]))
		}
	}
	return strings.Join(parts, ",")
}
