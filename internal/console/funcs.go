package console

import (
	"fmt"
	"html/template"
	"math"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
)

// funcs are the templates' helpers.
var funcs = template.FuncMap{
	"ts":      formatTime,
	"tsp":     formatTimePtr,
	"seconds": formatSeconds,
	"waited":  formatWaited,
	"live":    liveStatus,
	"num":     formatNumber,
	"bytes":   formatBytes,
	"status":  statusLabel,
	"query":   func(v url.Values) string { return v.Encode() },
	"join":    strings.Join,
	"deref":   func(p *int) int { return *p },
	"derefF":  func(p *float64) float64 { return *p },
	"add":     func(a, b int) int { return a + b },
}

// formatTime writes t in UTC to the second, or "—" for the zero time.
func formatTime(t time.Time) string {
	if t.IsZero() {
		return "—"
	}
	return t.UTC().Format("2006-01-02 15:04:05Z")
}

func formatTimePtr(t *time.Time) string {
	if t == nil {
		return "—"
	}
	return formatTime(*t)
}

// formatWaited is how long the oldest of a backlog has waited, or an
// em dash when nothing waits: an empty backlog has no oldest.
func formatWaited(s float64) string {
	if s <= 0 || math.IsNaN(s) {
		return "—"
	}
	return formatSeconds(s)
}

// liveStatus reports whether a delivery in status can still be attempted,
// so that a next attempt time means something.
func liveStatus(status string) bool {
	switch store.DeliveryStatus(status) {
	case store.StatusPending, store.StatusProcessing, store.StatusFailed:
		return true
	}
	return false
}

// formatSeconds writes a duration in seconds the way an operator reads
// it: "0s", "42s", "3m 20s", "5h 02m", "3d 4h".
func formatSeconds(s float64) string {
	if s <= 0 || math.IsNaN(s) {
		return "0s"
	}
	d := time.Duration(s * float64(time.Second))
	switch {
	case d < time.Second:
		return fmt.Sprintf("%dms", d.Milliseconds())
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm %02ds", int(d.Minutes()), int(d.Seconds())%60)
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh %02dm", int(d.Hours()), int(d.Minutes())%60)
	}
	return fmt.Sprintf("%dd %dh", int(d.Hours())/24, int(d.Hours())%24)
}

// formatNumber is formatCount of a template's integer, an int64 or an
// int (such as a text search's scan limit).
func formatNumber(n any) (string, error) {
	switch n := n.(type) {
	case int64:
		return formatCount(n), nil
	case int:
		return formatCount(int64(n)), nil
	}
	return "", fmt.Errorf("num: %T is not an integer", n)
}

// formatCount writes n with its thousands apart: 1 412 (a no-break space
// keeps the number on one line).
func formatCount(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteRune('\u00a0')
		}
		b.WriteRune(r)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// formatBytes writes a size: "512 B", "3.2 KiB", "1.0 MiB".
func formatBytes(n int64) string {
	switch {
	case n < 1024:
		return fmt.Sprintf("%d B", n)
	case n < 1<<20:
		return fmt.Sprintf("%.1f KiB", float64(n)/1024)
	}
	return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
}

// statusLabel is what a delivery status badge shows: the status as a
// word, so it never rests on colour alone.
func statusLabel(s string) string {
	if s == "" {
		return "none"
	}
	return s
}
