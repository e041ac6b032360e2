package deploy_test

import (
	"bufio"
	"maps"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/hookrelay/hookrelay/internal/config"
)

// unit is the [Service] section of deploy/hookrelay.service: each key's
// values in order.
type unit map[string][]string

// readUnit parses deploy/hookrelay.service's [Service] section.
func readUnit(t *testing.T) unit {
	t.Helper()
	f, err := os.Open("hookrelay.service")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	u := unit{}
	section := ""
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "" || strings.HasPrefix(line, "#"):
		case strings.HasPrefix(line, "["):
			section = line
		case section == "[Service]":
			k, v, _ := strings.Cut(line, "=")
			u[k] = append(u[k], v)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return u
}

// one returns the single value of key, failing the test when there is not
// exactly one.
func (u unit) one(t *testing.T, key string) string {
	t.Helper()
	if len(u[key]) != 1 {
		t.Fatalf("hookrelay.service: %s set %d times, want once", key, len(u[key]))
	}
	return u[key][0]
}

// configPath returns the path ExecStart passes to --config.
func (u unit) configPath(t *testing.T) string {
	t.Helper()
	args := strings.Fields(u.one(t, "ExecStart"))
	i := slices.Index(args, "--config")
	if i < 0 || i+1 == len(args) || args[1] != "serve" {
		t.Fatalf("hookrelay.service: ExecStart %q is not `hookrelay serve --config PATH`", args)
	}
	return args[i+1]
}

// credentials returns the unit's LoadCredential lines: path by id.
func (u unit) credentials(t *testing.T) map[string]string {
	t.Helper()
	creds := map[string]string{}
	for _, v := range u["LoadCredential"] {
		id, p, ok := strings.Cut(v, ":")
		if !ok || !filepath.IsAbs(p) {
			t.Fatalf("hookrelay.service: LoadCredential=%s: want ID:/absolute/path", v)
		}
		creds[id] = p
	}
	return creds
}

// stateDir returns the directory StateDirectory makes.
func (u unit) stateDir(t *testing.T) string {
	t.Helper()
	return path.Join("/var/lib", u.one(t, "StateDirectory"))
}

// installStep is one `install` command of the deployment guide's systemd steps.
type installStep struct {
	src  string // the file copied; "/dev/stdin" for a secret piped in; "" for a directory
	dest string
	mode os.FileMode
}

// installArgs matches `install [-D] [-d] -m MODE [SRC] DEST`.
var installArgs = regexp.MustCompile(`install((?: -[D])?)((?: -d)?) -m (0[0-7]{3}) (\S+)(?: (\S+))?`)

// guideInstall returns the install steps of the deployment guide's systemd section,
// by destination.
func guideInstall(t *testing.T) map[string]installStep {
	t.Helper()
	b, err := os.ReadFile("../docs/deployment.md")
	if err != nil {
		t.Fatal(err)
	}
	guide := string(b)
	start := strings.Index(guide, "\n## systemd\n")
	if start < 0 {
		t.Fatal("docs/deployment.md has no systemd section")
	}
	section := guide[start+1:]
	if end := strings.Index(section, "\n## "); end >= 0 {
		section = section[:end]
	}
	_, block, ok := strings.Cut(section, "```sh\n")
	if !ok {
		t.Fatal("the deployment guide's systemd section has no sh block of install steps")
	}
	block, _, _ = strings.Cut(block, "```")
	steps := map[string]installStep{}
	for _, line := range strings.Split(block, "\n") {
		m := installArgs.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		mode, _ := strconv.ParseUint(m[3], 8, 32)
		s := installStep{mode: os.FileMode(mode)}
		switch {
		case m[2] != "": // install -d DIR
			s.dest = m[4]
		case m[5] == "":
			t.Fatalf("docs/deployment.md: %q installs no destination", line)
		default:
			s.src, s.dest = m[4], m[5]
		}
		steps[s.dest] = s
	}
	if len(steps) == 0 {
		t.Fatal("the deployment guide's systemd section has no install steps")
	}
	return steps
}

// credentialRef matches a file: secret read from the credentials
// directory, with the in-place directory as its fallback outside systemd.
var credentialRef = regexp.MustCompile(`^file:\$\{CREDENTIALS_DIRECTORY(?::-([^}]+))?\}/([A-Za-z0-9_.-]+)$`)

// sampleSecrets returns the credential names the sample config reads, and
// the directory it reads them from outside systemd.
func sampleSecrets(t *testing.T) (names []string, fallback string) {
	t.Helper()
	b, err := os.ReadFile("hookrelay.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range regexp.MustCompile(`"(file:[^"]*)"`).FindAllStringSubmatch(string(b), -1) {
		ref := credentialRef.FindStringSubmatch(m[1])
		if ref == nil {
			t.Errorf("hookrelay.yaml: secret %q is not read from ${CREDENTIALS_DIRECTORY}", m[1])
			continue
		}
		if fallback != "" && ref[1] != fallback {
			t.Errorf("hookrelay.yaml: secrets read from %s and %s outside systemd", fallback, ref[1])
		}
		fallback = ref[1]
		names = append(names, ref[2])
	}
	if len(names) == 0 {
		t.Fatal("hookrelay.yaml reads no secret from ${CREDENTIALS_DIRECTORY}")
	}
	slices.Sort(names)
	return names, fallback
}

// TestUnitReadsTheInstalledConfig checks that the config the unit starts
// with is the one the deployment guide installs, from deploy/hookrelay.yaml, in the
// unit's ConfigurationDirectory, and that the service's user, which owns
// nothing there, may read it.
func TestUnitReadsTheInstalledConfig(t *testing.T) {
	u := readUnit(t)
	steps := guideInstall(t)
	cfgPath := u.configPath(t)
	if dir := path.Join("/etc", u.one(t, "ConfigurationDirectory")); path.Dir(cfgPath) != dir {
		t.Errorf("the unit reads %s, outside its ConfigurationDirectory %s", cfgPath, dir)
	}
	s, ok := steps[cfgPath]
	switch {
	case !ok:
		t.Fatalf("the deployment guide installs no config at %s, which the unit reads", cfgPath)
	case s.src != "deploy/hookrelay.yaml":
		t.Errorf("the deployment guide installs %s from %s, want deploy/hookrelay.yaml", cfgPath, s.src)
	case s.mode&0o004 == 0:
		t.Errorf("the deployment guide installs %s mode %04o: the service's user (DynamicUser, not root) cannot read it", cfgPath, s.mode)
	case s.mode&0o022 != 0:
		t.Errorf("the deployment guide installs %s mode %04o: writable by others than root", cfgPath, s.mode)
	}
	if bin := strings.Fields(u.one(t, "ExecStart"))[0]; steps[bin].src != "hookrelay" || steps[bin].mode != 0o755 {
		t.Errorf("the deployment guide does not install the binary at %s, mode 0755, that the unit runs", bin)
	}
	if u.one(t, "DynamicUser") != "yes" {
		t.Error("the unit does not run as a DynamicUser")
	}
}

// TestUnitLoadsTheConfigsSecrets checks that every secret the sample
// config reads is a credential the unit loads, from a file the deployment guide
// installs readable by root only, and that the config loads with them.
func TestUnitLoadsTheConfigsSecrets(t *testing.T) {
	u := readUnit(t)
	steps := guideInstall(t)
	names, fallback := sampleSecrets(t)
	creds := u.credentials(t)
	if ids := slices.Sorted(maps.Keys(creds)); !slices.Equal(ids, names) {
		t.Errorf("the unit loads credentials %q, the sample config reads %q", ids, names)
	}
	if d, ok := steps[fallback]; !ok || d.src != "" || d.mode != 0o700 {
		t.Errorf("the deployment guide does not make %s a directory mode 0700 (got %+v)", fallback, d)
	}
	for _, name := range names {
		p := path.Join(fallback, name)
		if creds[name] != p {
			t.Errorf("LoadCredential=%s:%s, want %s: the file the config reads outside systemd", name, creds[name], p)
		}
		if s, ok := steps[p]; !ok || s.mode != 0o600 {
			t.Errorf("the deployment guide does not install %s mode 0600 (got %+v)", p, s)
		}
	}

	// Inside the service: the credentials systemd copied.
	dir := t.TempDir()
	for _, name := range names {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(secretFor(name)+"\n"), 0o400); err != nil {
			t.Fatal(err)
		}
	}
	env := map[string]string{"CREDENTIALS_DIRECTORY": dir}
	cfg, err := config.Load("hookrelay.yaml", func(k string) string { return env[k] })
	if err != nil {
		t.Fatalf("hookrelay.yaml with the unit's credentials:\n%v", err)
	}
	if len(cfg.Tokens) == 0 || cfg.Tokens[0].Secret != secretFor("admin-token") {
		t.Errorf("tokens = %+v, want the admin token from the credential", cfg.Tokens)
	}
}

// TestUnitKeepsTheDatabaseInItsState checks that the sample config's
// SQLite database, and so the admin token a relay makes beside it when
// the config has none, is in the unit's StateDirectory, its working
// directory, the one place the service may write.
func TestUnitKeepsTheDatabaseInItsState(t *testing.T) {
	u := readUnit(t)
	names, _ := sampleSecrets(t)
	dir := t.TempDir()
	for _, name := range names {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(secretFor(name)), 0o400); err != nil {
			t.Fatal(err)
		}
	}
	cfg, err := config.Load("hookrelay.yaml", func(k string) string {
		if k == "CREDENTIALS_DIRECTORY" {
			return dir
		}
		return ""
	})
	if err != nil {
		t.Fatal(err)
	}
	state := u.stateDir(t)
	if driver, dsn := cfg.DatabaseDriver(); driver != "sqlite" || path.Dir(dsn) != state {
		t.Errorf("the sample config's database is %s %s, want SQLite in %s", driver, dsn, state)
	}
	if wd := u.one(t, "WorkingDirectory"); wd != state {
		t.Errorf("WorkingDirectory=%s, want the StateDirectory %s", wd, state)
	}
	if m := u.one(t, "StateDirectoryMode"); m != "0700" {
		t.Errorf("StateDirectoryMode=%s, want 0700: the database and the admin token are the service's alone", m)
	}
	if len(u["ReadWritePaths"]) > 0 {
		t.Errorf("ReadWritePaths=%q: the StateDirectory is the one place to write", u["ReadWritePaths"])
	}
}

// secretFor is a valid value for the credential name.
func secretFor(name string) string {
	if name == "admin-token" {
		return "deploy-test-admin-token-0123456789"
	}
	return "whsec_dGVzdC1zZWNyZXQtdGVzdC1zZWNyZXQ="
}
