#!/usr/bin/env bash
# bench-builds.sh measures, in place and in one sitting, what a delivery
# leased at ingest costs in two builds of the relay: it builds each commit
# in a worktree (the second with the patch in $PATCH applied, when set),
# then runs hookrelay-bench sustained (1 200 events/s to 4 destinations
# and to none) on each in turn, alternating, and prints the CPU per
# delivery lines, each named by its build. The bench itself is built from
# the first commit.
#
# Usage: scripts/bench-builds.sh BEFORE AFTER [sqlite|postgres|both] [postgres-url] [runs] [duration]
set -euo pipefail

before=${1:?usage: bench-builds.sh BEFORE AFTER [driver] [postgres-url] [runs] [duration]}
after=${2:?usage: bench-builds.sh BEFORE AFTER [driver] [postgres-url] [runs] [duration]}
driver=${3:-both}
url=${4:-postgres://postgres@127.0.0.1:5432/postgres}
runs=${5:-3}
duration=${6:-20s}

work=$(mktemp -d)
trap 'git worktree remove --force "$work/before" 2>/dev/null; git worktree remove --force "$work/after" 2>/dev/null; rm -rf "$work"' EXIT
git worktree add -q --detach "$work/before" "$before"
git worktree add -q --detach "$work/after" "$after"
if [ -n "${PATCH:-}" ]; then
	git -C "$work/after" apply "$PATCH"
fi
(cd "$work/before" && go build -o "$work/hookrelay-before" ./cmd/hookrelay && go build -o "$work/bench" ./cmd/hookrelay-bench)
(cd "$work/after" && go build -o "$work/hookrelay-after" ./cmd/hookrelay)

echo "CPU per delivery leased at ingest, µs: $before (before) and $after${PATCH:+ with $(basename "$PATCH")} (after), $runs runs each, alternating"
printf '%-8s %s\n' build "    driver  N  offered/s  runs  leased  busy  relay  postgres  destinations  plain  plain ÷ busy"
for _ in $(seq "$runs"); do
	for build in before after; do
		"$work/bench" sustained --driver "$driver" --postgres-url "$url" --destinations 0,4 --rates 1200 \
			--duration "$duration" --deliveries 0 --latency-events 0 --binary "$work/hookrelay-$build" 2>&1 |
			awk -v b="$build" '/driver  N  offered\/s  runs/ { on = 1; next }
				on && ($1 == "sqlite" || $1 == "postgres") { printf "%-8s %s\n", b, $0; next }
				{ on = 0 }'
	done
done
