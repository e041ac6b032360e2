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
		if cfg.AdminTokenFile != tok.path {
			t.Errorf("AdminTokenFile = %q, want %q", cfg.AdminTokenFile, tok.path)
		}
	}
}

// The generated token is kept: the next run takes it again, unless its
// file holds something else or others may read it.
func TestLocalTokenKeptAcrossRuns(t *testing.T) {
	t.Parallel()
	logger := slog.New(slog.DiscardHandler)
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	if err := os.Mkdir(data, 0o700); err != nil {
		t.Fatal(err)
	}
	newConfig := func() *config.Config {
		return &config.Config{Path: filepath.Join(dir, "hookrelay.yaml"), AdminListen: "127.0.0.1:8081",
			Database: "sqlite:" + filepath.Join(data, "hookrelay.db")}
	}
	first := addLocalToken(newConfig(), logger)
	if want := filepath.Join(data, localTokenFile); first.path != want {
		t.Fatalf("token kept in %s, want beside the database: %s", first.path, want)
	}
	if again := addLocalToken(newConfig(), logger); again.secret != first.secret {
		t.Errorf("a second run made a new token")
	}
	for name, spoil := range map[string]func() error{
		"readable by others": func() error { return os.Chmod(first.path, 0o644) },
		"not a token":        func() error { return os.WriteFile(first.path, []byte("hunter2\n"), 0o600) },
	} {
		if err := spoil(); err != nil {
			t.Fatal(err)
		}
		next := addLocalToken(newConfig(), logger)
		if next.secret == first.secret || next.secret == "hunter2" || !localTokenPattern.MatchString(next.secret) {
			t.Errorf("%s: the next run took %q", name, next.secret)
		}
		if st, err := os.Stat(first.path); err != nil || st.Mode().Perm() != 0o600 {
			t.Errorf("%s: token file now %v, %v; want 0600", name, st.Mode().Perm(), err)
		}
		first = next
	}
}
