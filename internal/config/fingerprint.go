package config

import (
	"crypto/sha256"
	"encoding/hex"

	"go.yaml.in/yaml/v3"
)

// Fingerprint identifies what c configures that must agree across the
// nodes of a fleet: sources and their secrets, destinations, tokens,
// retention, alerts, limits and keys — everything but what each node may
// set for itself (its listen addresses, its logs, the file it was read
// from, the admin token it generated for its loopback listener). It is a digest: it reveals no secret, and two nodes with the
// same fingerprint run the same configuration.
func (c *Config) Fingerprint() string {
	shared := *c
	shared.Path, shared.Warnings, shared.Unused, shared.AdminTokenFile = "", nil, nil, ""
	shared.Listen, shared.AdminListen, shared.Log = "", "", Log{}
	shared.origins = nil
	shared.Tokens = nil
	for _, t := range c.Tokens {
		if !t.Local {
			shared.Tokens = append(shared.Tokens, t)
		}
	}
	b, err := yaml.Marshal(&shared)
	if err != nil {
		// Every field of Config marshals; should one not, no two nodes
		// compare equal, which shows, rather than hides, the problem.
		return "unknown"
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:8])
}
