package main

import (
	"os"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/hookrelay/hookrelay/internal/config"
	"github.com/hookrelay/hookrelay/internal/testkit"
	"github.com/hookrelay/hookrelay/internal/testkit/relayproc"
)

func TestRelayConfig(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		cfg         relayConfig
		wantMaxBody string
	}{
		{name: "default body limit", cfg: relayConfig{Database: "sqlite:/tmp/x/bench.db", LogLevel: "warn"}},
		{name: "large bodies", cfg: relayConfig{Database: "postgres://postgres@127.0.0.1:5432/hookrelay_bench_x", LogLevel: "info", MaxBody: 2 * config.MiB}, wantMaxBody: "2MiB"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := []byte(relayproc.ConfigYAML(tt.cfg.Database, "127.0.0.1:1", "127.0.0.1:2", tt.cfg.yaml()))
			var got struct {
				Database    string `yaml:"database"`
				Listen      string `yaml:"listen"`
				AdminListen string `yaml:"admin_listen"`
				Sources     []struct {
					Name    string   `yaml:"name"`
					Verify  string   `yaml:"verify"`
					Secrets []string `yaml:"secrets"`
					MaxBody string   `yaml:"max_body"`
				} `yaml:"sources"`
				Log struct {
					Level string `yaml:"level"`
				} `yaml:"log"`
			}
			if err := yaml.Unmarshal(b, &got); err != nil {
				t.Fatalf("config is not YAML: %v\n%s", err, b)
			}
			if got.Database != tt.cfg.Database || got.Listen != "127.0.0.1:1" || got.AdminListen != "127.0.0.1:2" || got.Log.Level != tt.cfg.LogLevel {
				t.Fatalf("config %+v from\n%s", got, b)
			}
			if len(got.Sources) != 1 {
				t.Fatalf("sources %+v", got.Sources)
			}
			s := got.Sources[0]
			if s.Name != "stripe" || s.Verify != "stripe" || len(s.Secrets) != 1 || s.Secrets[0] != "${"+secretEnv+"}" || s.MaxBody != tt.wantMaxBody {
				t.Fatalf("source %+v", s)
			}
		})
	}
}

func TestProcMemory(t *testing.T) {
	t.Parallel()
	rss, hwm, err := relayproc.Memory(os.Getpid())
	if err != nil {
		t.Skipf("no /proc here: %v", err)
	}
	if rss <= 0 || hwm < rss {
		t.Fatalf("rss %d hwm %d", rss, hwm)
	}
	s := sampleRSS(os.Getpid(), time.Millisecond)
	testkit.Eventually(t, 5*time.Second, "a few samples", func() error {
		s.mu.Lock()
		defer s.mu.Unlock()
		return testkit.Check(s.samples >= 3, "%d samples", s.samples)
	})
	peak, n := s.Stop()
	if peak <= 0 || n == 0 {
		t.Fatalf("peak %d after %d samples", peak, n)
	}
}
