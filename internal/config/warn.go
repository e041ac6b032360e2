package config

import "fmt"

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
		if s.ActiveSecrets() {
			continue
		}
		var hint string
		for j := range s.Secrets {
			if h := c.origins[fmt.Sprintf("%s.secrets[%d]", key, j)].hint(); h != "" {
				hint = h
				break
			}
		}
		c.Warnings = append(c.Warnings, fmt.Sprintf("%s.secrets: source %q has no secret%s; its requests are answered 503", key, s.Name, hint))
	}
}
