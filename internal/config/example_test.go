package config

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

const examplePath = "../../examples/hookrelay.yaml"

// exampleEnv returns a value for every variable the example names,
// commented lines included.
func exampleEnv(t *testing.T, doc string) map[string]string {
	t.Helper()
	vars := map[string]string{}
	for _, m := range regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)`).FindAllStringSubmatch(doc, -1) {
		name := m[1]
		switch {
		case strings.HasSuffix(name, "SIGNING_SECRET"):
			vars[name] = testSigning
		case strings.HasSuffix(name, "PUBLIC_KEY"):
			vars[name] = testDiscordKey
		case strings.HasSuffix(name, "PAYLOAD_KEY"):
			vars[name] = testKey1 // 32 bytes in base64
		case strings.HasSuffix(name, "_URL"):
			vars[name] = "https://alerts.example.com/" + strings.ToLower(name)
		default:
			vars[name] = "value-of-" + name
		}
	}
	if len(vars) < 8 {
		t.Fatalf("the example names only %d variables", len(vars))
	}
	return vars
}

func TestLoadExampleWithEmptyEnvironment(t *testing.T) {
	t.Parallel()
	c, err := Load(examplePath, env(nil))
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	abs, _ := filepath.Abs(examplePath)
	if c.Path != abs {
		t.Errorf("Path = %q, want %q", c.Path, abs)
	}
	if want := "sqlite:" + filepath.Join(filepath.Dir(abs), "hookrelay.db"); c.Database != want {
		t.Errorf("Database = %q, want %q (next to the file)", c.Database, want)
	}
	var names []string
	for _, s := range c.Sources {
		names = append(names, s.Name+"/"+s.Verify)
	}
	if want := []string{"stripe/stripe", "github/github", "shopify/shopify", "acme/standard"}; !slices.Equal(names, want) {
		t.Errorf("sources = %q, want %q", names, want)
	}
	if s, _ := c.Source("stripe"); len(s.Secrets) != 2 || s.ActiveSecrets() {
		t.Errorf("stripe secrets = %q, want two empty slots", s.Secrets)
	}
	if len(c.Tokens) != 0 {
		t.Errorf("tokens = %+v; want none", c.Tokens)
	}
	// The pull destination works out of the box, with its stand-in secret.
	if d, ok := c.Destination("dev"); len(c.Destinations) != 1 || !ok || !d.Pull || d.Secret == "" {
		t.Errorf("destinations = %+v; want the pull destination dev only", c.Destinations)
	}
	if len(c.Warnings) != 6 {
		t.Errorf("Warnings = %q, want 2 dropped tokens and 4 sources without a secret", c.Warnings)
	}
}

func TestLoadExampleWithEveryVariable(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(examplePath)
	if err != nil {
		t.Fatal(err)
	}
	c, err := Load(examplePath, env(exampleEnv(t, string(data))))
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	if len(c.Warnings) != 0 {
		t.Errorf("Warnings = %q, want none", c.Warnings)
	}
	if len(c.Tokens) != 2 {
		t.Errorf("Tokens = %+v, want ops and dashboard", c.Tokens)
	}
	if s, _ := c.Source("acme"); !slices.Equal(s.Secrets, []string{"value-of-ACME_WEBHOOK_SECRET"}) {
		t.Errorf("acme secrets = %q", s.Secrets)
	}
}

// The commented settings are valid too, once their variables are set.
func TestExampleCommentedSettings(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(examplePath)
	if err != nil {
		t.Fatal(err)
	}
	setting := regexp.MustCompile(`(?m)^#([^ \n]|  )`)
	doc := setting.ReplaceAllString(string(data), "$1")
	if doc == string(data) {
		t.Fatal("no commented settings found")
	}
	abs, _ := filepath.Abs(examplePath)
	c, err := Parse([]byte(doc), filepath.Dir(abs), env(exampleEnv(t, doc)))
	if err != nil {
		t.Fatalf("Parse of the uncommented example: %v\n%s", err, doc)
	}
	for _, name := range []string{"billing", "dev-alice"} {
		if _, ok := c.Destination(name); !ok {
			t.Errorf("destination %q missing", name)
		}
	}
	if _, ok := c.Source("partner"); !ok || len(c.Tokens) != 3 || c.Alerts.URL == "" {
		t.Errorf("uncommented example = %+v", c)
	}
	if want := Default().Ingest; c.Ingest != want {
		t.Errorf("Ingest = %+v, want the defaults %+v as the comment says", c.Ingest, want)
	}
	for _, name := range []string{"twilio", "whatsapp", "discord"} {
		if _, ok := c.Source(name); !ok {
			t.Errorf("source %q missing", name)
		}
	}
	if s, _ := c.Source("github"); !s.AllowSHA1 {
		t.Error("github allow_sha1 not set")
	}
}

func TestLoadReportsProblemsOneALine(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "hookrelay.yaml")
	if err := os.WriteFile(path, []byte("listen: nowhere\nsources: [{name: s, verify: strpe}]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Load(path, env(nil))
	want := `listen: invalid address "nowhere" (want host:port, e.g. :8080)` + "\n" +
		`sources[0].verify: unknown scheme "strpe" (did you mean "stripe"?) (want one of stripe, github, shopify, standard, slack, gitlab, hmac, none, twilio, paddle, zoom, meta, discord, sendgrid, mailgun, square, linear, intercom, msgraph)`
	if err == nil || err.Error() != want {
		t.Errorf("Load = %v, want\n%s", err, want)
	}
}

func TestLoadMissingFile(t *testing.T) {
	t.Parallel()
	_, err := Load(filepath.Join(t.TempDir(), "nope.yaml"), env(nil))
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Load = %v, want a not-exist error", err)
	}
}
