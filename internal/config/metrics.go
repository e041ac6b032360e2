package config

import (
	"fmt"
	"strings"
	"unicode"
)

// metricsToken checks metrics_token: printable, without spaces (it is
// sent as "Authorization: Bearer TOKEN"), and not the secret of an admin
// API token, which would give every scraper that token's role.
func (v *validator) metricsToken() {
	tok := v.c.MetricsToken
	if tok == "" {
		return
	}
	if strings.IndexFunc(tok, func(r rune) bool { return unicode.IsSpace(r) || !unicode.IsPrint(r) }) >= 0 {
		v.add("metrics_token", "has a space or an unprintable character (it is sent as a bearer token)")
	}
	for i, t := range v.c.Tokens {
		if t.Secret == tok {
			v.add("metrics_token", "same secret as tokens[%d] (a scraper would hold that token's role)", i)
		}
	}
}

// warnMetricsToken warns when metrics_token was written in the file but
// came out empty (an unset variable): /metrics is then open.
func (c *Config) warnMetricsToken() {
	const key = "metrics_token"
	if c.MetricsToken != "" {
		return
	}
	if h := c.origins[key].hint(); h != "" {
		c.Warnings = append(c.Warnings, fmt.Sprintf("%s: empty%s; /metrics answers without a token", key, h))
	}
}
