package cli

import (
	"context"
	"fmt"
)

func runCheckConfig(_ context.Context, env Env, args []string) error {
	cfg, err := configOnly(env, "check-config", args)
	if err != nil {
		return err
	}
	for _, w := range cfg.Warnings {
		fmt.Fprintf(env.Stderr, "warning: %s\n", w)
	}
	if err := cfg.WriteMasked(env.Stdout); err != nil {
		return fmt.Errorf("print config: %w", err)
	}
	return nil
}
