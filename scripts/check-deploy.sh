#!/usr/bin/env bash
# Checks what deploy/ and the Dockerfile ship, as far as this machine can:
# builds the binary exactly as the image does and checks it is static, then
# verifies the systemd unit and its hardening (systemd-analyze; the unit's
# agreement with its sample config and the README, and a start as systemd
# would do it, are tested in deploy/) and the alerting rules
# (promtool) when those commands are installed. There is no container engine
# in CI, so the image itself is not built here.
set -euo pipefail
cd "$(dirname "$0")/.."

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

./scripts/build-static.sh "$tmp/hookrelay" ci
if ! go version -m "$tmp/hookrelay" | grep -q 'CGO_ENABLED=0'; then
  echo "check-deploy: the image's binary was built with cgo" >&2; exit 1
fi
"$tmp/hookrelay" version

if command -v systemd-analyze >/dev/null; then
  # verify wants ExecStart to exist: point it at the binary just built.
  sed "s#/usr/local/bin/hookrelay#$tmp/hookrelay#" deploy/hookrelay.service > "$tmp/hookrelay.service"
  systemd-analyze verify "$tmp/hookrelay.service"
  # The hardening may not slip: exposure 2.0 at most (it is 1.2, "OK").
  systemd-analyze security --offline=yes --threshold=20 "$tmp/hookrelay.service" >/dev/null
  echo "check-deploy: systemd unit verified, exposure within 2.0"
else
  echo "check-deploy: systemd-analyze not installed: unit not verified"
fi

if [ -f deploy/prometheus-rules.yaml ]; then
  if command -v promtool >/dev/null; then
    promtool check rules deploy/prometheus-rules.yaml
    promtool test rules deploy/prometheus-rules.test.yaml
  else
    echo "check-deploy: promtool not installed: rules not checked"
  fi
fi
