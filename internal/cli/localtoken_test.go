package cli

import (
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"github.com/hookrelay/hookrelay/internal/config"
)

func TestLocalTokenOnlyOnLoopbackWithoutAdmin(t *testing.T) {
	t.Parallel()
	logger := slog.New(slog.DiscardHandler)
	for _, tc := range []struct {
		admin  string
		tokens []config.Token
		want   bool
	}{
		{"127.0.0.1:8081", nil, true},
		{"[::1]:8081", nil, true},
		{"localhost:8081", nil, true},
		{"0.0.0.0:8081", nil, false},
		{":8081", nil, false},
		{"10.0.0.5:8081", nil, false},
		{"127.0.0.1:8081", []config.Token{{Name: "ops", Role: config.RoleAdmin, Secret: "s"}}, false},
		{"127.0.0.1:8081", []config.Token{{Name: "dash", Role: config.RoleRead, Secret: "s"}}, true},
	} {
		dir := t.TempDir()
		cfg := &config.Config{Path: filepath.Join(dir, "hookrelay.yaml"), AdminListen: tc.admin, Tokens: tc.tokens}
		tok := addLocalToken(cfg, logger)
		if (tok != nil) != tc.want {
			t.Errorf("%s with %d tokens: made a token %v, want %v", tc.admin, len(tc.tokens), tok != nil, tc.want)
			continue
		}
		if tok == nil {
			continue
		}
		if last := cfg.Tokens[len(cfg.Tokens)-1]; last.Role != config.RoleAdmin || last.Secret != tok.secret {
			t.Errorf("the config's tokens lack the local admin token: %+v", cfg.Tokens)
		}
		tok.remove()
		if _, err := os.Stat(tok.path); !os.IsNotExist(err) {
			t.Errorf("remove left %s: %v", tok.path, err)
		}
	}
}
