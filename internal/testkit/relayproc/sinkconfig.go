package relayproc

import "fmt"

// SinkConfig is a relay config of one source, "stripe", and one push
// destination, "sink", retried for as many attempts as a crash or soak
// test can need: what the reliability tests and the soak run.
type SinkConfig struct {
	// URL is the sink's address.
	URL string
	// Backoff is the sink's backoff, a YAML list such as "[100ms, 1s]".
	Backoff string
	// SecretPrefix names the variables the secrets are read from:
	// <prefix>_STRIPE_SECRET and <prefix>_SINK_SECRET.
	SecretPrefix string
}

// YAML returns the config's text after the database and the listeners
// (RelayOptions.Config). The secrets stay in the environment.
func (c SinkConfig) YAML() string {
	return fmt.Sprintf(`sources:
  - name: stripe
    verify: stripe
    secrets: ["${%s_STRIPE_SECRET}"]
destinations:
  - name: sink
    url: %q
    secret: "${%s_SINK_SECRET}"
    sources: [stripe]
    timeout: 2s
    max_attempts: 1000
    backoff: %s
    concurrency: 8
log:
  level: warn
`, c.SecretPrefix, c.URL, c.SecretPrefix, c.Backoff)
}
