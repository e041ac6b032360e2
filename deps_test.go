package hookrelay_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestLibraryLinksNoExporter checks that an application embedding
// hookrelay, like the examples, does not link the OpenTelemetry SDK or
// its exporters' gRPC: only `serve` exports traces.
func TestLibraryLinksNoExporter(t *testing.T) {
	t.Parallel()
	for _, pkg := range linked(t, ".", "./examples/...") {
		if strings.HasPrefix(pkg, "google.golang.org/grpc") || strings.HasPrefix(pkg, "go.opentelemetry.io/otel/sdk") ||
			strings.HasPrefix(pkg, "go.opentelemetry.io/otel/exporters") {
			t.Errorf("the library links %s", pkg)
		}
	}
}

// TestLibraryLinksNoMigrationTool checks that the library and its test
// package link no migration tool: an application that applies hookrelay's
// exported migrations with its own (examples/orders does, with
// golang-migrate) brings that tool, and one that does not never links it.
func TestLibraryLinksNoMigrationTool(t *testing.T) {
	t.Parallel()
	for _, pkg := range linked(t, ".", "./hookrelaytest") {
		if strings.HasPrefix(pkg, "github.com/golang-migrate/") {
			t.Errorf("the library links %s", pkg)
		}
	}
}

// linked returns the packages that pkgs link, pkgs and their
// dependencies, as `go list -deps` names them.
func linked(t *testing.T, pkgs ...string) []string {
	t.Helper()
	out, err := exec.Command("go", append([]string{"list", "-deps"}, pkgs...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	return strings.Fields(string(out))
}
