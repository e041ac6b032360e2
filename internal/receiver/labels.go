package receiver

import "sync"

// Event types come from requests, so a metric labelled by type could grow
// a series for every type a sender makes up. typeLabels keeps the first
// maxTypeLabels types of each source as labels and folds the rest into
// otherType.
const (
	maxTypeLabels = 100
	otherType     = "other"
)

// typeLabels is the set of event types used as label values, per source.
// It is safe for concurrent use.
type typeLabels struct {
	mu   sync.Mutex
	seen map[string]map[string]struct{} // guarded by mu; source -> types
}

// label returns the label value for eventType on source: the type itself
// while the source has fewer than maxTypeLabels types, or one it already
// has; otherType after that.
func (l *typeLabels) label(source, eventType string) string {
	if eventType == "" {
		return ""
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.seen == nil {
		l.seen = map[string]map[string]struct{}{}
	}
	types := l.seen[source]
	if types == nil {
		types = map[string]struct{}{}
		l.seen[source] = types
	}
	if _, ok := types[eventType]; ok {
		return eventType
	}
	if len(types) >= maxTypeLabels {
		return otherType
	}
	types[eventType] = struct{}{}
	return eventType
}
