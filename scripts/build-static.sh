#!/usr/bin/env sh
# Builds the hookrelay binary the way the container image ships it: static
# (no cgo; the SQLite driver is pure Go), without local paths, stripped.
# The Dockerfile and CI both run this script, so what CI builds is what the
# image runs. Usage: scripts/build-static.sh OUTPUT [VERSION]
set -eu
cd "$(dirname "$0")/.."
out=${1:?usage: scripts/build-static.sh OUTPUT [VERSION]}
version=${2:-dev}
CGO_ENABLED=0 go build -trimpath -buildvcs=false \
  -ldflags "-s -w -X github.com/hookrelay/hookrelay/internal/cli.Version=$version" \
  -o "$out" ./cmd/hookrelay
