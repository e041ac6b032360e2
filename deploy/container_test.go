package deploy_test

import (
	"os"
	"strings"
	"testing"

	"github.com/hookrelay/hookrelay/internal/config"
)

// TestContainerConfigLoads loads the image's config as the container does:
// with only the environment compose.yaml sets, on both drivers.
func TestContainerConfigLoads(t *testing.T) {
	for _, db := range []string{"", "postgres://hookrelay:pw@postgres:5432/hookrelay?sslmode=disable"} {
		env := map[string]string{
			"HOOKRELAY_DATABASE":    db,
			"HOOKRELAY_ADMIN_TOKEN": "admin-token",
			"STRIPE_WEBHOOK_SECRET": "whsec_dGVzdA",
		}
		cfg, err := config.Load("container.yaml", func(k string) string { return env[k] })
		if err != nil {
			t.Fatalf("database %q: %v", db, err)
		}
		driver, dsn := cfg.DatabaseDriver()
		switch {
		case db == "" && (driver != "sqlite" || dsn != "/var/lib/hookrelay/hookrelay.db"):
			t.Errorf("default database = %s %s, want SQLite on the volume", driver, dsn)
		case db != "" && driver != "postgres":
			t.Errorf("database %q = driver %s, want postgres", db, driver)
		}
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
