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
// lists every problem, each on its own line with its key path.
func loadConfig(env Env, path string) (*config.Config, error) {
	cfg, err := config.Load(path, env.Getenv)
	if err != nil {
		return nil, fmt.Errorf("load config %s:\n%w", path, err)
	}
	return cfg, nil
}
