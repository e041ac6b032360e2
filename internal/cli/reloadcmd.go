package cli

import (
	"context"
	"fmt"
	"strings"
)

func runReload(ctx context.Context, env Env, args []string) error {
	fs := newFlagSet(env, "reload")
	api := addAPIFlags(fs)
	asJSON := fs.Bool("json", false, "print the API's JSON")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), "Usage: hookrelay reload [--json]\n\n"+
			"Makes the relay re-read its config file and apply its sources, secrets, destinations and\n"+
			"tokens without a restart (as SIGHUP does). A config with problems is refused, its problems\n"+
			"printed, and the running config stays.\n\n")
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	c, err := api.client(env, "admin")
	if err != nil {
		return err
	}
	sum, data, err := ask(ctx, c, c.Reload)
	if err != nil {
		return err
	}
	if *asJSON {
		return printJSON(env.Stdout, data)
	}
	fmt.Fprintf(env.Stdout, "config reloaded: %s, %s, %s\n", counted(sum.Sources, "source", "sources"), counted(sum.Destinations, "destination", "destinations"), counted(sum.Tokens, "token", "tokens"))
	if len(sum.RestartRequired) > 0 {
		fmt.Fprintf(env.Stdout, "changed but applied only at restart: %s\n", strings.Join(sum.RestartRequired, ", "))
	}
	return nil
}
