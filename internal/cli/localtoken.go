package cli

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/hookrelay/hookrelay/internal/config"
)

// localTokenFile is the name of the file that holds the admin token a
// relay makes for itself when none is configured: beside the SQLite
// database (the relay's data, a directory it may write), or beside the
// config on PostgreSQL.
const localTokenFile = "hookrelay.admin-token"

// localTokenPattern is what a token the relay made looks like; a file
// holding anything else is not taken for one.
var localTokenPattern = regexp.MustCompile(`^hrl_[0-9a-f]{48}$`)

// localToken is the admin token a relay makes when the config has no admin
// token and the admin listener is on loopback, so that a first run can be
// looked at with the CLI: `export HOOKRELAY_TOKEN=$(cat
// hookrelay.admin-token)`. It is kept in a file only its owner may read,
// and the next run takes it again, so that a restart does not turn away a
// CLI or `listen` holding it; delete the file for a new one. The log names
// the file, never the token.
type localToken struct {
	path   string
	secret string
}

// addLocalToken adds the local admin token to cfg when it has no admin
// token and its admin listener only listens on loopback: the one in its
// file if that holds one, else a new one written there. It returns nil
// when it added none.
func addLocalToken(cfg *config.Config, logger *slog.Logger) *localToken {
	if slices.ContainsFunc(cfg.Tokens, func(t config.Token) bool { return t.Role == config.RoleAdmin && t.Secret != "" }) {
		return nil
	}
	if !loopbackOnly(cfg.AdminListen) {
		logger.Warn("no admin token is configured and admin_listen is not a loopback address, so no admin call is accepted: set an admin token's secret in tokens",
			"admin_listen", cfg.AdminListen)
		return nil
	}
	t := &localToken{path: localTokenPath(cfg)}
	if secret, ok := readLocalToken(t.path); ok {
		t.secret = secret
	} else {
		buf := make([]byte, 24)
		_, _ = rand.Read(buf)
		t.secret = "hrl_" + hex.EncodeToString(buf)
		if err := writePrivate(t.path, []byte(t.secret+"\n")); err != nil {
			logger.Warn("no admin token is configured, and the generated admin token could not be written: set an admin token's secret in tokens",
				"path", t.path, "error", err)
			return nil
		}
	}
	t.addTo(cfg)
	logger.Warn("no admin token is configured: the generated admin token, for the loopback admin listener only, is in "+t.path+
		" (export HOOKRELAY_TOKEN=$(cat "+t.path+")); it is kept across restarts: delete the file for a new one",
		"path", t.path, "admin_listen", cfg.AdminListen)
	return t
}

// localTokenPath is where the local admin token of cfg is kept.
func localTokenPath(cfg *config.Config) string {
	dir := filepath.Dir(cfg.Path)
	if driver, dsn := cfg.DatabaseDriver(); driver == "sqlite" {
		dir = filepath.Dir(dsn)
	}
	return filepath.Join(dir, localTokenFile)
}

// readLocalToken returns the token in the file at path when it is one the
// relay made and no one but its owner may read it.
func readLocalToken(path string) (string, bool) {
	st, err := os.Lstat(path)
	if err != nil || !st.Mode().IsRegular() || st.Mode().Perm()&0o077 != 0 {
		return "", false
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return "", false
	}
	secret := strings.TrimRight(string(b), "\n")
	return secret, localTokenPattern.MatchString(secret)
}

// addTo adds the token to cfg, if there is one, and names its file. A
// config read again on a reload gets it too.
func (t *localToken) addTo(cfg *config.Config) {
	if t == nil {
		return
	}
	cfg.Tokens = append(cfg.Tokens, config.Token{Name: "local", Role: config.RoleAdmin, Secret: t.secret, Local: true})
	cfg.AdminTokenFile = t.path
}

// writePrivate writes data to the file at path, readable and writable by
// its owner only, whatever the umask: a file left there with a wider mode
// is narrowed before anything is written to it.
func writePrivate(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	err = f.Chmod(0o600)
	if err == nil {
		_, err = f.Write(data)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// loopbackOnly reports whether a listen address only accepts connections
// from this machine: its host is a loopback IP or "localhost".
func loopbackOnly(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// checkListenFlags refuses a --listen or --admin-listen that is not
// HOST:PORT, before the config is read.
func checkListenFlags(listen, adminListen string) error {
	for flag, v := range map[string]string{"listen": listen, "admin-listen": adminListen} {
		if v == "" {
			continue
		}
		if _, _, err := net.SplitHostPort(v); err != nil {
			return fmt.Errorf("%w: --%s %q: want HOST:PORT, e.g. 127.0.0.1:8091 (%v)", errUsage, flag, v, err)
		}
	}
	return nil
}

// overrideListeners applies serve's --listen and --admin-listen, so that a
// receiver and a worker can run from one config on one host.
func overrideListeners(cfg *config.Config, listen, adminListen string) {
	if listen != "" {
		cfg.Listen = listen
	}
	if adminListen != "" {
		cfg.AdminListen = adminListen
	}
}
