package cli

import (
	"context"
	"fmt"
)

func runCheckConfig(_ context.Context, env Env, args []string) error {
	fs := newFlagSet(env, "check-config")
	path := addConfigFlag(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	cfg, err := loadConfig(env, *path)
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
