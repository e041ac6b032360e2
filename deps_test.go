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
	out, err := exec.Command("go", "list", "-deps", ".", "./examples/...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, pkg := range strings.Fields(string(out)) {
		if strings.HasPrefix(pkg, "google.golang.org/grpc") || strings.HasPrefix(pkg, "go.opentelemetry.io/otel/sdk") ||
			strings.HasPrefix(pkg, "go.opentelemetry.io/otel/exporters") {
			t.Errorf("the library links %s", pkg)
		}
	}
}
