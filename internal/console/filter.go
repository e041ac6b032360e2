package console

import (
	"net/url"
	"strings"

	"github.com/hookrelay/hookrelay/internal/adminwire"
	"github.com/hookrelay/hookrelay/internal/store"
)

// filterForm is a filter as the pages' forms show it, with the events
// page's search: Q, a hookrelay or provider event id or the start of one,
// and Text, text the payload holds.
type filterForm struct {
	Source, Type, Status, Destination, Since, Until, Q, Text string
}

// filterFrom reads a filter from query or form values.
func filterFrom(v url.Values) filterForm {
	get := func(k string) string { return strings.TrimSpace(v.Get(k)) }
	return filterForm{
		Source: get("source"), Type: get("type"), Status: get("status"), Destination: get("destination"),
		Since: get("since"), Until: get("until"), Q: get("q"), Text: v.Get("text"),
	}
}

// search returns the search as the admin API takes it.
func (f filterForm) search() adminwire.Search { return adminwire.Search{Q: f.Q, Text: f.Text} }

// api returns the filter as the admin API takes it (the search aside).
func (f filterForm) api() adminwire.Filter {
	return adminwire.Filter{Source: f.Source, Type: f.Type, Status: f.Status, Destination: f.Destination, Since: f.Since, Until: f.Until}
}

// values returns the filter's non-empty fields as query values.
func (f filterForm) values() url.Values {
	v := url.Values{}
	for _, kv := range [][2]string{{"source", f.Source}, {"type", f.Type}, {"status", f.Status},
		{"destination", f.Destination}, {"since", f.Since}, {"until", f.Until}, {"q", f.Q}, {"text", f.Text}} {
		if kv[1] != "" {
			v.Set(kv[0], kv[1])
		}
	}
	return v
}

// Empty reports whether the filter selects everything.
func (f filterForm) Empty() bool { return f == filterForm{} }

// choices are the values the filter forms offer in their lists.
type choices struct {
	Sources      []string
	Destinations []string
	Statuses     []string
}

func (c *Console) choices() choices {
	var ch choices
	for _, s := range c.cfg.Sources {
		ch.Sources = append(ch.Sources, s.Name)
	}
	for _, d := range c.cfg.Destinations {
		ch.Destinations = append(ch.Destinations, d.Name)
	}
	for _, s := range store.Statuses {
		ch.Statuses = append(ch.Statuses, string(s))
	}
	return ch
}
