package cli

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"slices"

	"github.com/hookrelay/hookrelay/internal/config"
)

// localTokenFile is the name of the file, next to the config, that holds
// the admin token a relay makes for itself when none is configured.
const localTokenFile = "hookrelay.admin-token"

// localToken is the admin token of one run, made when the config has no
// admin token and the admin listener is on loopback, so that a first run
// can be looked at with the CLI: `export HOOKRELAY_TOKEN=$(cat
// hookrelay.admin-token)`. It is written to a file only its owner may read
// and removed when the relay stops; the log names the file, never the
// token.
type localToken struct {
	path   string
	secret string
}

// addLocalToken adds a one-run admin token to cfg when it has no admin
// token and its admin listener only listens on loopback, and writes it
// next to the config. It returns nil when it added none.
func addLocalToken(cfg *config.Config, logger *slog.Logger) *localToken {
	if slices.ContainsFunc(cfg.Tokens, func(t config.Token) bool { return t.Role == config.RoleAdmin && t.Secret != "" }) {
		return nil
	}
	if !loopbackOnly(cfg.AdminListen) {
		logger.Warn("no admin token is configured and admin_listen is not a loopback address, so no admin call is accepted: set an admin token's secret in tokens",
			"admin_listen", cfg.AdminListen)
		return nil
	}
	buf := make([]byte, 24)
	_, _ = rand.Read(buf)
	t := &localToken{path: filepath.Join(filepath.Dir(cfg.Path), localTokenFile), secret: "hrl_" + hex.EncodeToString(buf)}
	if err := writePrivate(t.path, []byte(t.secret+"\n")); err != nil {
		logger.Warn("no admin token is configured, and the one-run admin token could not be written: set an admin token's secret in tokens",
			"path", t.path, "error", err)
		return nil
	}
	t.addTo(cfg)
	logger.Warn("no admin token is configured: this run's admin token, for the loopback admin listener only, is in "+t.path+
		" (export HOOKRELAY_TOKEN=$(cat "+t.path+")); it is removed when the relay stops",
		"path", t.path, "admin_listen", cfg.AdminListen)
	return t
}

// addTo adds the token to cfg, if there is one. A config read again on a
// reload gets it too: the token lasts the run, as its log line says.
func (t *localToken) addTo(cfg *config.Config) {
	if t == nil {
		return
	}
	cfg.Tokens = append(cfg.Tokens, config.Token{Name: "local", Role: config.RoleAdmin, Secret: t.secret})
}

// remove deletes the token file if it still holds this run's token (a
// second relay on the same config may have replaced it).
func (t *localToken) remove() {
	if t == nil {
		return
	}
	if b, err := os.ReadFile(t.path); err == nil && string(b) == t.secret+"\n" {
		_ = os.Remove(t.path)
	}
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
