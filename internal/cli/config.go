package cli

import (
	"flag"
	"fmt"

	"github.com/hookrelay/hookrelay/internal/config"
)

// defaultConfigPath is where serve, migrate and check-config look without
// --config.
const defaultConfigPath = "./hookrelay.yaml"

func addConfigFlag(fs *flag.FlagSet) *string {
	return fs.String("config", defaultConfigPath, "path of the YAML config file")
}

// loadConfig loads and validates the config, returning one error whose text
// lists every problem, each on its own line with its key path. A command
// that uses only some top-level keys names them as parts: a problem an
// unset variable causes elsewhere is then printed as a warning on stderr,
// not an error (see config.LoadParts); serve and check-config name none.
func loadConfig(env Env, path string, parts ...string) (*config.Config, error) {
	cfg, err := config.LoadParts(path, env.Getenv, parts...)
	if err != nil {
		return nil, fmt.Errorf("load config %s:\n%w", path, err)
	}
	for _, p := range cfg.Unused {
		fmt.Fprintf(env.Stderr, "warning: %s; not needed here, but serve refuses to start without it\n", p)
	}
	return cfg, nil
}
