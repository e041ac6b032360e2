// Package deploy holds what runs hookrelay elsewhere: the container's
// config, the systemd unit, the Prometheus alerting rules and the Grafana
// dashboard. Its tests check those files against the code.
package deploy
