package config

import (
	"fmt"
	"io"
	"maps"
	"net/url"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// masked replaces a secret value in WriteMasked's output.
const masked = "****"

// WriteMasked writes the effective configuration, defaults filled, as YAML
// to w, with every secret replaced by "****" (an empty one stays ""): token
// and metrics token, source, destination and alert secrets, encryption keys,
// the database password, the user info and query values of destination,
// alert and console URLs, and the path of the alerts URL (which often is the
// secret, as in chat webhooks). A literal "${" in a value
// is written "$${", so that the output loads back as it was.
func (c *Config) WriteMasked(w io.Writer) error {
	m := *c
	m.Database = maskDatabase(c.Database)
	m.MetricsToken = mask(c.MetricsToken)
	m.Tokens = slices.Clone(c.Tokens)
	for i := range m.Tokens {
		m.Tokens[i].Secret = mask(m.Tokens[i].Secret)
	}
	m.Sources = slices.Clone(c.Sources)
	for i := range m.Sources {
		secrets := make([]string, len(m.Sources[i].Secrets))
		for j, s := range m.Sources[i].Secrets {
			secrets[j] = mask(s)
		}
		m.Sources[i].Secrets = secrets
		m.Sources[i].VerifyToken = mask(m.Sources[i].VerifyToken)
	}
	m.Destinations = slices.Clone(c.Destinations)
	for i := range m.Destinations {
		m.Destinations[i].Secret = mask(m.Destinations[i].Secret)
		m.Destinations[i].URL = maskURL(m.Destinations[i].URL, true, false)
	}
	m.Alerts.URL = maskURL(c.Alerts.URL, true, true)
	m.Alerts.Secret = mask(c.Alerts.Secret)
	m.Alerts.ConsoleURL = maskURL(c.Alerts.ConsoleURL, true, false)
	m.Encryption.Keys = slices.Clone(c.Encryption.Keys)
	for i := range m.Encryption.Keys {
		m.Encryption.Keys[i].Key = mask(m.Encryption.Keys[i].Key)
	}

	var doc yaml.Node
	if err := doc.Encode(&m); err != nil {
		return fmt.Errorf("write config: %w", err)
	}
	escapeExpansions(&doc)
	enc := yaml.NewEncoder(w)
	enc.SetIndent(2)
	if err := enc.Encode(&doc); err != nil {
		return fmt.Errorf("write config: %w", err)
	}
	if err := enc.Close(); err != nil {
		return fmt.Errorf("write config: %w", err)
	}
	return nil
}

// escapeExpansions writes a literal "${" in a value as "$${", so that the
// output loads back to the same values.
func escapeExpansions(n *yaml.Node) {
	if n.Kind == yaml.ScalarNode {
		n.Value = strings.ReplaceAll(n.Value, "${", "$${")
	}
	for _, c := range n.Content {
		escapeExpansions(c)
	}
}

func mask(s string) string {
	if s == "" {
		return ""
	}
	return masked
}

// maskDatabase hides the password of a postgres URL, in the user info or in
// a password query parameter.
func maskDatabase(db string) string {
	if !isPostgresURL(db) {
		return db
	}
	return maskURL(db, false, false)
}

// maskURL hides a URL's password and query values, its user name too when
// hideUser, and its path when hidePath. A URL that cannot be parsed is
// hidden entirely.
func maskURL(raw string, hideUser, hidePath bool) string {
	if raw == "" {
		return ""
	}
	u, err := url.Parse(raw)
	if err != nil {
		return masked
	}
	if u.User == nil && u.RawQuery == "" && u.Fragment == "" && u.Opaque == "" && (!hidePath || u.Path == "" || u.Path == "/") {
		return raw // nothing to hide; net/url would not give it back byte for byte
	}
	// net/url escapes "*", so a placeholder of plain letters stands in for
	// the mask until the URL is a string.
	const hole = "MASKEDVALUE"
	if u.User != nil {
		user := u.User.Username()
		if hideUser {
			user = hole
		}
		if _, ok := u.User.Password(); ok {
			u.User = url.UserPassword(user, hole)
		} else {
			u.User = url.User(user)
		}
	}
	if u.RawQuery != "" {
		keys := slices.Sorted(maps.Keys(u.Query()))
		for i, k := range keys {
			keys[i] = url.QueryEscape(k) + "=" + hole
		}
		u.RawQuery = strings.Join(keys, "&")
	}
	if u.Fragment != "" {
		u.Fragment, u.RawFragment = hole, ""
	}
	if hidePath && u.Path != "" && u.Path != "/" {
		u.Path, u.RawPath = "/"+hole, ""
	}
	if u.Opaque != "" {
		u.Opaque = hole
	}
	return strings.ReplaceAll(u.String(), hole, masked)
}

// MaskDatabase returns a database URL with its password hidden, as a
// command prints it.
func MaskDatabase(db string) string { return maskDatabase(db) }
