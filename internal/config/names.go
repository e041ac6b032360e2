package config

import (
	"fmt"
	"strings"
)

// UnknownName says that name is not among the configured names of a kind
// ("source", "destination"), with the closest one when it looks like a typo
// and the list of those that exist: `no source "strpe" in the config (did
// you mean "stripe"?; it has stripe, github)`.
func UnknownName(kind, name string, known []string) string {
	msg := fmt.Sprintf("no %s %q in the config%s", kind, name, DidYouMean(name, known))
	if len(known) == 0 {
		return msg + "; it has none"
	}
	return msg + "; it has " + strings.Join(known, ", ")
}

// DidYouMean returns ` (did you mean "x"?)` when one of known is a
// likely typo of name (at most two edits away), or "".
func DidYouMean(name string, known []string) string {
	fields := make(map[string]int, len(known))
	for i, k := range known {
		fields[k] = i
	}
	return suggest(name, fields)
}

// SourceNames lists the configured sources' names in config order.
func (c *Config) SourceNames() []string {
	names := make([]string, len(c.Sources))
	for i, s := range c.Sources {
		names[i] = s.Name
	}
	return names
}

// DestinationNames lists the configured destinations' names in config
// order.
func (c *Config) DestinationNames() []string {
	names := make([]string, len(c.Destinations))
	for i, d := range c.Destinations {
		names[i] = d.Name
	}
	return names
}
