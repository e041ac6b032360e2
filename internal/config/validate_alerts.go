package config

// alerts checks alerts.url and the signature-failure rate.
func (v *validator) alerts() {
	a := v.c.Alerts
	if a.URL != "" {
		v.httpURL("alerts.url", a.URL)
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
