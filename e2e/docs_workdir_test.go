package e2e

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// localize points the guide's default addresses at the session's.
func (s *docSession) localize(text string) string {
	return strings.NewReplacer("127.0.0.1:8080", s.public, "127.0.0.1:8081", s.admin).Replace(text)
}

// environ is what every command of the guide gets on top of this
// process's environment: the variables a reader's shell would not have
// set blanked, the binary first on PATH, the CLI's server, and what the
// guide exported.
func (s *docSession) environ() []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(name, "HOOKRELAY_") || strings.HasSuffix(name, "_SECRET") ||
			strings.HasSuffix(name, "_SECRET_OLD") || strings.HasSuffix(name, "_TOKEN") {
			env = append(env, name+"=")
		}
	}
	env = append(env,
		"PATH="+filepath.Dir(binary)+string(os.PathListSeparator)+os.Getenv("PATH"),
		"HOOKRELAY_SERVER=http://"+s.admin,
	)
	return append(env, s.exports...)
}

// writeConfig saves a config of the guide at name with the session's
// listeners and, when set, its database.
func (s *docSession) writeConfig(name, text string) {
	s.t.Helper()
	keys := map[string]string{"listen": s.public, "admin_listen": s.admin}
	if s.database != "" {
		keys["database"] = s.database
	}
	var b strings.Builder
	for line := range strings.SplitSeq(text, "\n") {
		key, _, _ := strings.Cut(line, ":")
		if v, ok := keys[key]; ok {
			fmt.Fprintf(&b, "%s: %q\n", key, v)
			delete(keys, key)
			continue
		}
		b.WriteString(line + "\n")
	}
	for key, v := range keys {
		fmt.Fprintf(&b, "%s: %q\n", key, v)
	}
	s.writeFile(name, []byte(b.String()))
}

func (s *docSession) writeFile(name string, data []byte) {
	s.t.Helper()
	path := filepath.Join(s.dir, name)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		s.t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		s.t.Fatal(err)
	}
}

// logFiles logs the files the guide's commands wrote their logs to.
func (s *docSession) logFiles() {
	_ = filepath.WalkDir(s.dir, func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".log") {
			b, _ := os.ReadFile(path)
			s.t.Logf("%s:\n%s", path, b)
		}
		return nil
	})
}

// errNoToken is returned by adminToken when the relay wrote none.
var errNoToken = errors.New("no generated admin token")

// adminToken returns the admin token the relay generated next to the
// guide's config.
func (s *docSession) adminToken() (string, error) {
	token := ""
	err := filepath.WalkDir(s.dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.Name() != "hookrelay.admin-token" {
			return err
		}
		b, err := os.ReadFile(path)
		token = strings.TrimSpace(string(b))
		return err
	})
	if err != nil {
		return "", fmt.Errorf("read admin token: %w", err)
	}
	if token == "" {
		return "", errNoToken
	}
	return token, nil
}
