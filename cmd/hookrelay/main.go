// Command hookrelay verifies, records and relays webhooks. See README.md.
package main

import (
	"context"
	"os"

	"github.com/hookrelay/hookrelay/internal/cli"
)

func main() {
	env := cli.Env{Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv}
	os.Exit(cli.Main(context.Background(), env, os.Args[1:]))
}
