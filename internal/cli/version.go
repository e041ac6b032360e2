package cli

import (
	"context"
	"fmt"
	"runtime"
	"runtime/debug"
)

// Version is the release version, set at build time with
// -ldflags "-X github.com/hookrelay/hookrelay/internal/cli.Version=v1.2.3".
var Version = "dev"

func runVersion(_ context.Context, env Env, args []string) error {
	fs := newFlagSet(env, "version")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	rev := ""
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, s := range info.Settings {
			if s.Key == "vcs.revision" {
				rev = " " + s.Value
			}
		}
	}
	fmt.Fprintf(env.Stdout, "hookrelay %s%s %s\n", Version, rev, runtime.Version())
	return nil
}
