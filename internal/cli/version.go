package cli

import (
	"context"
	"fmt"
	"runtime"
	"runtime/debug"
)

// Version is the release version, and Commit the commit the binary was
// built from, both set at build time (`make build` sets Commit):
// -ldflags "-X github.com/hookrelay/hookrelay/internal/cli.Version=v1.2.3
// -X github.com/hookrelay/hookrelay/internal/cli.Commit=$(git rev-parse HEAD)".
// Without Commit, the commit Go recorded in the binary is printed, if any.
var (
	Version = "dev"
	Commit  = ""
)

func runVersion(_ context.Context, env Env, args []string) error {
	fs := newFlagSet(env, "version")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "hookrelay %s commit %s %s\n", Version, commit(), runtime.Version())
	return nil
}

// commit returns the commit the binary was built from, with "+modified"
// when the tree had uncommitted changes, or says how to get it recorded.
func commit() string {
	if Commit != "" {
		return Commit
	}
	rev, modified := "", ""
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, s := range info.Settings {
			switch {
			case s.Key == "vcs.revision":
				rev = s.Value
			case s.Key == "vcs.modified" && s.Value == "true":
				modified = "+modified"
			}
		}
	}
	if rev == "" {
		return "unknown (built without version control information: build with `make build`)"
	}
	return rev + modified
}
