package relayproc

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/hookrelay/hookrelay/internal/config"
)

func TestSinkConfigLoads(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, prefix, backoff string
	}{
		{name: "soak", prefix: "SOAK", backoff: "[100ms, 500ms, 1s]"},
		{name: "reliability", prefix: "REL", backoff: "[50ms]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := SinkConfig{URL: "http://127.0.0.1:3/hook", Backoff: tt.backoff, SecretPrefix: tt.prefix}
			path := filepath.Join(t.TempDir(), "hookrelay.yaml")
			yaml := ConfigYAML("sqlite:/tmp/x.db", "127.0.0.1:1", "127.0.0.1:2", c.YAML())
			if err := os.WriteFile(path, []byte(yaml), 0o600); err != nil {
				t.Fatal(err)
			}
			env := map[string]string{
				tt.prefix + "_STRIPE_SECRET": "whsec_c3RyaXBlLXNlY3JldA==",
				tt.prefix + "_SINK_SECRET":   "whsec_c2luay1zZWNyZXQ=",
			}
			cfg, err := config.Load(path, func(k string) string { return env[k] })
			if err != nil {
				t.Fatal(err)
			}
			if len(cfg.Destinations) != 1 || cfg.Destinations[0].Secret != env[tt.prefix+"_SINK_SECRET"] ||
				len(cfg.Sources) != 1 || cfg.Sources[0].Secrets[0] != env[tt.prefix+"_STRIPE_SECRET"] {
				t.Errorf("config %+v", cfg)
			}
		})
	}
}
