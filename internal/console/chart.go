package console

import (
	"context"
	"fmt"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
)

// Chart geometry, in the SVG's own units; the page scales it to its width.
const (
	chartWidth  = 600.0
	chartHeight = 120.0
	chartTop    = 8.0  // room above the tallest bar
	chartAxis   = 18.0 // room below the bars for the time labels
)

// activityRange is a window of the overview's charts.
type activityRange struct {
	Name  string // the value of ?range=
	Label string
	Span  time.Duration
}

var activityRanges = []activityRange{
	{Name: "hour", Label: "Last hour", Span: time.Hour},
	{Name: "day", Label: "Last day", Span: 24 * time.Hour},
}

// chart is one bar chart of the overview, drawn as SVG on the server.
type chart struct {
	Title string
	Class string // received, delivered or failed: the bars' colour
	Total int64
	Peak  int64
	Bars  []bar
	Ticks []tick
	// Summary says what the chart shows, for screen readers.
	Summary string
	W, H    float64
	Base    float64 // the y of the axis
}

type bar struct {
	X, Y, W, H float64
	Label      string // shown on hover; empty on the day's charts
}

type tick struct {
	X     float64
	Label string
	Align string // start, middle or end
}

// activityCharts reads the window's activity per minute and draws the
// received, delivered and failed charts.
func (c *Console) activityCharts(ctx context.Context, r activityRange) ([]chart, error) {
	until := c.now().Truncate(time.Minute).Add(time.Minute)
	since := until.Add(-r.Span)
	buckets, err := c.store.Activity(ctx, since, until, time.Minute)
	if err != nil {
		return nil, fmt.Errorf("read activity: %w", err)
	}
	pick := []struct {
		title, class string
		value        func(store.ActivityBucket) int64
	}{
		{"Received", "received", func(b store.ActivityBucket) int64 { return b.Received }},
		{"Delivered", "delivered", func(b store.ActivityBucket) int64 { return b.Delivered }},
		{"Failed attempts", "failed", func(b store.ActivityBucket) int64 { return b.Failed }},
	}
	out := make([]chart, len(pick))
	for i, p := range pick {
		values := make([]int64, len(buckets))
		for j, b := range buckets {
			values[j] = p.value(b)
		}
		out[i] = drawChart(p.title, p.class, r, buckets, values)
	}
	return out, nil
}

// drawChart lays out one chart's bars and time labels.
func drawChart(title, class string, r activityRange, buckets []store.ActivityBucket, values []int64) chart {
	ch := chart{Title: title, Class: class, W: chartWidth, H: chartHeight, Base: chartHeight - chartAxis}
	for _, v := range values {
		ch.Total += v
		ch.Peak = max(ch.Peak, v)
	}
	n := float64(len(values))
	if n == 0 {
		return ch
	}
	slot := chartWidth / n
	gap := 0.0
	if slot >= 4 {
		gap = 1
	}
	scale := 0.0
	if ch.Peak > 0 {
		scale = (ch.Base - chartTop) / float64(ch.Peak)
	}
	for i, v := range values {
		if v == 0 {
			continue
		}
		h := max(float64(v)*scale, 1)
		b := bar{X: float64(i) * slot, Y: ch.Base - h, W: slot - gap, H: h}
		if r.Span <= time.Hour {
			b.Label = fmt.Sprintf("%s UTC: %s", buckets[i].Start.Format("15:04"), formatCount(v))
		}
		ch.Bars = append(ch.Bars, b)
	}
	first, last := buckets[0].Start, buckets[len(buckets)-1].Start
	mid := buckets[len(buckets)/2].Start
	ch.Ticks = []tick{
		{X: 0, Label: first.Format("15:04"), Align: "start"},
		{X: chartWidth / 2, Label: mid.Format("15:04"), Align: "middle"},
		{X: chartWidth, Label: last.Format("15:04") + " UTC", Align: "end"},
	}
	ch.Summary = fmt.Sprintf("%s per minute, %s: %s in all, at most %s in a minute.",
		title, lower(r.Label), formatCount(ch.Total), formatCount(ch.Peak))
	return ch
}

func lower(s string) string {
	if s == "" {
		return s
	}
	return string(s[0]+'a'-'A') + s[1:]
}
