package main

import (
	"path/filepath"

	"github.com/hookrelay/hookrelay/internal/testkit/relayproc"
)

// Secrets of the soak's config, given to the relay through its environment.
const (
	stripeSecret = "whsec_c29hay1zdHJpcGUtc2VjcmV0"
	sinkSecret   = "whsec_c29hay1zaW5rLXNlY3JldA=="
)

var relayEnv = []string{"SOAK_STRIPE_SECRET=" + stripeSecret, "SOAK_SINK_SECRET=" + sinkSecret}

// relayOptions are the soak's relay: binary on database, its config and
// log in dir, with the stripe source and one push destination, "sink", at
// url, retried quickly and for as long as a soak can need.
func relayOptions(binary, dir, database, url string) relayproc.RelayOptions {
	return relayproc.RelayOptions{
		Binary: binary, ConfigPath: filepath.Join(dir, "hookrelay.yaml"), Database: database,
		Config: relayproc.SinkConfig{URL: url, Backoff: "[100ms, 500ms, 1s]", SecretPrefix: "SOAK"}.YAML(),
		Env:    relayEnv, LogPath: filepath.Join(dir, "relay.log"),
	}
}
