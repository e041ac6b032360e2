#!/usr/bin/env bash
# bench-rows-at-outcome.sh measures, in place, what a delivery leased at
# ingest would cost if it had no row until its outcome. It builds the
# relay at the commit the prototype was made on, and beside it the same
# commit with scripts/rows-at-outcome.patch applied — on both drivers,
# ingest reserves the ids of the deliveries it leases (those without an
# ordering key) instead of inserting their rows, and the outcome inserts
# each row whole, done — then runs hookrelay-bench sustained (1 200
# events/s to 4 destinations and to none) on each in turn and prints the
# CPU per delivery lines. The prototype keeps what the rows would hold in
# the relay's memory and has no recovery: a measurement, never a relay to
# run.
#
# Usage: scripts/bench-rows-at-outcome.sh [sqlite|postgres|both] [postgres-url] [runs] [duration]
set -euo pipefail

driver=${1:-both}
url=${2:-postgres://postgres@127.0.0.1:5432/postgres}
runs=${3:-3}
duration=${4:-20s}
base=d33324b209e4
patch=$(cd "$(dirname "$0")" && pwd)/rows-at-outcome.patch

work=$(mktemp -d)
trap 'git worktree remove --force "$work/today" 2>/dev/null; git worktree remove --force "$work/prototype" 2>/dev/null; rm -rf "$work"' EXIT
git worktree add -q --detach "$work/today" "$base"
git worktree add -q --detach "$work/prototype" "$base"
git -C "$work/prototype" apply "$patch"
(cd "$work/today" && go build -o "$work/hookrelay-today" ./cmd/hookrelay && go build -o "$work/bench" ./cmd/hookrelay-bench)
(cd "$work/prototype" && go build -o "$work/hookrelay-prototype" ./cmd/hookrelay)

echo "CPU per delivery leased at ingest, µs, rows written at ingest (today) and at outcome (prototype), $runs runs each, alternating"
printf '%-10s %s\n' build "    driver  N  offered/s  runs  leased  busy  relay  postgres  destinations  plain  plain ÷ busy"
for _ in $(seq "$runs"); do
	for build in today prototype; do
		"$work/bench" sustained --driver "$driver" --postgres-url "$url" --destinations 0,4 --rates 1200 \
			--duration "$duration" --deliveries 0 --latency-events 0 --binary "$work/hookrelay-$build" 2>&1 |
			awk -v b="$build" '/driver  N  offered\/s  runs/ { on = 1; next }
				on && ($1 == "sqlite" || $1 == "postgres") { printf "%-10s %s\n", b, $0; next }
				{ on = 0 }'
	done
done
