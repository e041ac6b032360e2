package config

import (
	"fmt"
	"net/url"
	"strings"
)

// alerts checks alerts.url, how alerts are written, signed and linked, and
// the signature-failure rate.
func (v *validator) alerts() {
	a := v.c.Alerts
	if a.URL != "" {
		v.httpURL("alerts.url", a.URL)
	}
	switch a.Format {
	case AlertFormatJSON, AlertFormatSlack:
	default:
		v.add("alerts.format", "unknown format %q%s (want %s)", a.Format, DidYouMean(a.Format, AlertFormats), strings.Join(AlertFormats, " or "))
	}
	v.alertSecret(a)
	if a.ConsoleURL != "" {
		v.consoleURL("alerts.console_url", a.ConsoleURL)
	}
	f := a.SignatureFailures
	if f.Rate.IsZero() {
		return
	}
	if f.Rate.Events <= 0 || f.Rate.Per <= 0 {
		v.add("alerts.signature_failures.rate", "want a rate above zero, like 10/m")
	}
	v.durationPositive("alerts.signature_failures.window", f.Window)
	if a.URL == "" {
		v.add("alerts.signature_failures", "set alerts.url: the alerts have nowhere to go")
	}
}

// alertSecret checks alerts.secret when it is set; it is optional (see
// warnAlertSecret).
func (v *validator) alertSecret(a Alerts) {
	if a.Secret != "" {
		v.whsec("alerts.secret", a.Secret)
	}
}

// warnAlertSecret warns when alerts.secret was written in the file but
// came out empty (an unset variable, an empty file) while alerts are
// posted: they then go out unsigned. Like metrics_token, it is optional,
// so that one file serves deployments that sign and those that do not.
func (c *Config) warnAlertSecret() {
	const key = "alerts.secret"
	if c.Alerts.Secret != "" || c.Alerts.URL == "" {
		return
	}
	if h := c.origins[key].hint(); h != "" {
		c.Warnings = append(c.Warnings, fmt.Sprintf("%s: empty%s; alerts go out unsigned", key, h))
	}
}

// consoleURL checks a base URL that links are made from: absolute http or
// https, with no query or fragment for the links' own to collide with.
func (v *validator) consoleURL(key, raw string) {
	u, err := url.Parse(raw)
	switch {
	case err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "":
		v.add(key, "want an absolute http or https URL, like https://relay.example.com:8081")
	case u.RawQuery != "" || u.Fragment != "" || strings.HasSuffix(raw, "?") || strings.HasSuffix(raw, "#"):
		v.add(key, "want the console's base URL, without a query or fragment")
	}
}
