package deploy_test

import (
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/hookrelay/hookrelay/internal/config"
)

// composeService is the part of a compose.yaml service the tests read.
type composeService struct {
	Environment map[string]string `yaml:"environment"`
	Healthcheck struct {
		Test []string `yaml:"test"`
	} `yaml:"healthcheck"`
}

// readCompose returns compose.yaml's hookrelay service.
func readCompose(t *testing.T) composeService {
	t.Helper()
	b, err := os.ReadFile("../compose.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Services map[string]composeService `yaml:"services"`
	}
	if err := yaml.Unmarshal(b, &doc); err != nil {
		t.Fatalf("compose.yaml: %v", err)
	}
	svc, ok := doc.Services["hookrelay"]
	if !ok {
		t.Fatal("compose.yaml has no hookrelay service")
	}
	return svc
}

// composeVar is ${NAME}, ${NAME:-default} or ${NAME:?message} as compose
// reads it.
var composeVar = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)(?::([-?])([^}]*))?\}`)

// interpolate expands value as compose does from the host's environment,
// and fails as compose does on a required variable that is unset.
func interpolate(value string, host map[string]string) (string, error) {
	var err error
	out := composeVar.ReplaceAllStringFunc(value, func(m string) string {
		g := composeVar.FindStringSubmatch(m)
		v := host[g[1]]
		switch {
		case v != "":
			return v
		case g[2] == "-":
			return g[3]
		case g[2] == "?" && err == nil:
			err = fmt.Errorf("required variable %s is missing a value: %s", g[1], g[3])
		}
		return ""
	})
	return out, err
}

// requiredVars returns the host variables compose.yaml requires
// (${NAME:?…}) anywhere outside its comments: compose interpolates the
// whole file before it starts any service.
func requiredVars(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile("../compose.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "#") {
			continue
		}
		for _, g := range composeVar.FindAllStringSubmatch(line, -1) {
			if g[2] == "?" && !slices.Contains(names, g[1]) {
				names = append(names, g[1])
			}
		}
	}
	slices.Sort(names)
	return names
}

// hostValue is a valid value for a host variable of compose.yaml.
func hostValue(name string) string {
	switch name {
	case "HOOKRELAY_DESTINATION_URL":
		return "https://app.example.com/webhooks"
	case "HOOKRELAY_SIGNING_SECRET", "STRIPE_WEBHOOK_SECRET", "GITHUB_WEBHOOK_SECRET":
		return "whsec_dGVzdC1zZWNyZXQtdGVzdC1zZWNyZXQ="
	}
	return "value-of-" + strings.ToLower(name)
}

// TestComposeStartsWithRequiredVars loads the image's config with exactly
// the environment compose.yaml passes the container when the host sets
// only the variables compose.yaml requires: it starts, on PostgreSQL, and
// delivers somewhere. Every variable the config reads is one compose
// passes, and every required one is named in compose.yaml's header.
func TestComposeStartsWithRequiredVars(t *testing.T) {
	svc := readCompose(t)
	required := requiredVars(t)
	for _, want := range []string{"POSTGRES_PASSWORD", "HOOKRELAY_ADMIN_TOKEN"} {
		if !slices.Contains(required, want) {
			t.Errorf("compose.yaml does not require %s", want)
		}
	}
	host := map[string]string{}
	for _, name := range required {
		host[name] = hostValue(name)
	}
	env := map[string]string{}
	for k, v := range svc.Environment {
		got, err := interpolate(v, host)
		if err != nil {
			t.Fatalf("compose.yaml environment %s: %v", k, err)
		}
		env[k] = got
	}

	cfg, err := config.Load("container.yaml", func(k string) string { return env[k] })
	if err != nil {
		t.Fatalf("container.yaml with compose.yaml's environment %v:\n%v", required, err)
	}
	if driver, _ := cfg.DatabaseDriver(); driver != "postgres" {
		t.Errorf("database driver = %s, want postgres", driver)
	}
	if len(cfg.Destinations) == 0 {
		t.Fatal("container.yaml has no destination: events would be stored and never delivered")
	}
	if d := cfg.Destinations[0]; d.URL != host["HOOKRELAY_DESTINATION_URL"] {
		t.Errorf("destination %s url = %q, want HOOKRELAY_DESTINATION_URL", d.Name, d.URL)
	}

	b, err := os.ReadFile("container.yaml")
	if err != nil {
		t.Fatal(err)
	}
	header, _ := os.ReadFile("../compose.yaml")
	for _, g := range composeVar.FindAllStringSubmatch(string(b), -1) {
		if _, ok := svc.Environment[g[1]]; !ok {
			t.Errorf("container.yaml reads ${%s}, which compose.yaml does not pass", g[1])
		}
	}
	for _, name := range required {
		if !strings.Contains(string(header[:strings.Index(string(header), "services:")]), name) {
			t.Errorf("compose.yaml requires %s but its header does not name it", name)
		}
	}

	// A host that leaves a required variable unset: compose refuses to
	// start, naming it, rather than starting a relay that cannot deliver.
	for _, name := range required {
		if _, err := interpolate(string(header), without(host, name)); err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("compose.yaml starts without %s (%v)", name, err)
		}
	}
}

// without returns a copy of m without key.
func without(m map[string]string, key string) map[string]string {
	c := map[string]string{}
	for k, v := range m {
		if k != key {
			c[k] = v
		}
	}
	return c
}

// dockerRunEnv returns the variables the deployment guide's `docker run` example
// sets with -e.
func dockerRunEnv(t *testing.T) map[string]string {
	t.Helper()
	b, err := os.ReadFile("../docs/deployment.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	start := strings.Index(readme, "docker run ")
	if start < 0 {
		t.Fatal("docs/deployment.md has no docker run example")
	}
	cmd := readme[start : start+strings.Index(readme[start:], "\n```")]
	env := map[string]string{}
	for _, m := range regexp.MustCompile(`-e ([A-Z_]+)=`).FindAllStringSubmatch(cmd, -1) {
		env[m[1]] = hostValue(m[1])
	}
	return env
}

// TestDockerRunStartsAsDocumented loads the image's config with exactly the
// variables the deployment guide's `docker run` example sets: SQLite on the volume,
// delivering to the destination.
func TestDockerRunStartsAsDocumented(t *testing.T) {
	env := dockerRunEnv(t)
	cfg, err := config.Load("container.yaml", func(k string) string { return env[k] })
	if err != nil {
		t.Fatalf("container.yaml with the deployment guide's docker run environment %v:\n%v", env, err)
	}
	if driver, dsn := cfg.DatabaseDriver(); driver != "sqlite" || dsn != "/var/lib/hookrelay/hookrelay.db" {
		t.Errorf("default database = %s %s, want SQLite on the volume", driver, dsn)
	}
	if len(cfg.Destinations) == 0 || cfg.Destinations[0].URL != env["HOOKRELAY_DESTINATION_URL"] {
		t.Errorf("destinations = %+v, want one delivering to HOOKRELAY_DESTINATION_URL", cfg.Destinations)
	}
}

// TestHealthcheckAsksTheAdminListener checks that compose.yaml's and the
// Dockerfile's health checks run `hookrelay health` against the port the
// image's config puts the admin listener on.
func TestHealthcheckAsksTheAdminListener(t *testing.T) {
	svc := readCompose(t)
	env := dockerRunEnv(t)
	cfg, err := config.Load("container.yaml", func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	port := cfg.AdminListen[strings.LastIndex(cfg.AdminListen, ":")+1:]
	want := []string{"CMD", "/usr/local/bin/hookrelay", "health", "--url", "http://127.0.0.1:" + port + "/readyz"}
	if !slices.Equal(svc.Healthcheck.Test, want) {
		t.Errorf("compose.yaml healthcheck test = %q, want %q", svc.Healthcheck.Test, want)
	}
	dockerfile, err := os.ReadFile("../Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(dockerfile), `CMD ["/usr/local/bin/hookrelay", "health", "--url", "http://127.0.0.1:`+port+`/readyz"]`) {
		t.Errorf("Dockerfile has no HEALTHCHECK running hookrelay health on port %s", port)
	}
}

// TestImageBuildsAsCIDoes keeps the Dockerfile and CI on one build command.
func TestImageBuildsAsCIDoes(t *testing.T) {
	for f, want := range map[string]string{
		"../Dockerfile":              "scripts/build-static.sh",
		"../scripts/check-deploy.sh": "scripts/build-static.sh",
		"../.ci/run":                 "scripts/check-deploy.sh",
	} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), want) {
			t.Errorf("%s does not run %s", f, want)
		}
	}
}
