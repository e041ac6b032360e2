package config

// Origin tells where the value at a key path such as
// "sources[0].secrets[1]" came from: the environment variables it was
// expanded from, or the file it was read from (file:PATH). Both are empty
// for a value written in the config as it is.
func (c *Config) Origin(path string) (vars []string, file string) {
	o := c.origins[path]
	return o.vars, o.file
}
