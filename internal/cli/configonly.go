package cli

import "github.com/hookrelay/hookrelay/internal/config"

// configOnly parses args of a command named name whose one flag is
// --config, and loads the config it names, of which the command uses only
// parts (none: all; see loadConfig).
func configOnly(env Env, name string, args []string, parts ...string) (*config.Config, error) {
	fs := newFlagSet(env, name)
	path := addConfigFlag(fs)
	if err := parseFlags(fs, args); err != nil {
		return nil, err
	}
	return loadConfig(env, *path, parts...)
}
