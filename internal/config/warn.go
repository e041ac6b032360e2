package config

import (
	"fmt"
	"slices"
)

// dropEmptyTokens removes the tokens whose secret is empty, with a warning
// each, so that an example whose variables are unset still runs.
func (c *Config) dropEmptyTokens() {
	kept := c.Tokens[:0]
	for i, t := range c.Tokens {
		if t.Secret != "" {
			kept = append(kept, t)
			continue
		}
		key := fmt.Sprintf("tokens[%d].secret", i)
		c.Warnings = append(c.Warnings, fmt.Sprintf("%s: empty%s; token %q is not active", key, c.origins[key].hint(), t.Name))
	}
	c.Tokens = kept
}

// warnSources warns about sources that cannot accept anything yet and about
// sources that accept everything.
func (c *Config) warnSources() {
	for i := range c.Sources {
		s := &c.Sources[i]
		key := fmt.Sprintf("sources[%d]", i)
		if s.Verify == "none" {
			c.Warnings = append(c.Warnings, fmt.Sprintf("%s.verify: source %q verifies nothing: anyone who can reach the listener can post events to it; use it only locally", key, s.Name))
			continue
		}
		if s.Verify == "meta" && s.VerifyToken == "" {
			c.Warnings = append(c.Warnings, fmt.Sprintf("%s.verify_token: source %q has no verify_token%s; Meta's subscription check is answered 503",
				key, s.Name, c.origins[key+".verify_token"].hint()))
		}
		if s.ActiveKeys() {
			continue
		}
		field, what, n := "secrets", "secret", len(s.Secrets)
		if slices.Contains(keyOnlySchemes, s.Verify) {
			field, what, n = "public_keys", "public key", len(s.PublicKeys)
		}
		var hint string
		for j := range n {
			if h := c.origins[fmt.Sprintf("%s.%s[%d]", key, field, j)].hint(); h != "" {
				hint = h
				break
			}
		}
		c.Warnings = append(c.Warnings, fmt.Sprintf("%s.%s: source %q has no %s%s; its requests are answered 503", key, field, s.Name, what, hint))
	}
}

// partitionsWarned is how many partitions of each table a partitioned
// event log may keep before a warning says so.
const partitionsWarned = 100

// warnPartitions warns when the retention keeps so many partitions that
// the queries which probe each of them slow down.
func (c *Config) warnPartitions() {
	if n := c.Retention.PartitionsKept(); n > partitionsWarned {
		c.Warnings = append(c.Warnings, fmt.Sprintf("retention.partitions: %s with the retention of %s keeps about %d partitions of each table; "+
			"claims and lookups by delivery id probe each: prefer daily ones or a shorter retention", c.Retention.Partitions, max(c.Retention.Done, c.Retention.Dead), n))
	}
}
