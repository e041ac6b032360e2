// Package relayproc runs the hookrelay binary as a child process, the way
// the end-to-end tests, the benchmark and the soak do: build it once, start
// `hookrelay serve`, wait until its /readyz answers 200, and stop it with a
// signal.
package relayproc

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
)

// Build builds the hookrelay command at pkg (a path such as
// "./cmd/hookrelay", relative to the working directory) into dir and
// returns the binary's path. The compiler's output is in the error.
func Build(ctx context.Context, dir, pkg string) (string, error) {
	return BuildNamed(ctx, dir, pkg, "hookrelay")
}

// BuildNamed builds the command at pkg into dir as name, without the race
// detector whatever the tests run with, and returns the binary's path.
// The compiler's output is in the error.
func BuildNamed(ctx context.Context, dir, pkg, name string) (string, error) {
	bin := filepath.Join(dir, name)
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, pkg)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("build %s: %w\n%s", name, err, out.String())
	}
	return bin, nil
}
