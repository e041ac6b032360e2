#!/usr/bin/env bash
# bench-idle.sh measures what an idle relay costs: each build in turn runs
# on a fresh PostgreSQL database with four push destinations and no
# events, and after a few seconds of start-up the script reads, over the
# given seconds, the CPU time of the relay process and of the server's
# backends for that database from /proc. Builds alternate, runs times.
#
# Usage: scripts/bench-idle.sh SECONDS RUNS POSTGRES-URL BINARY...
set -euo pipefail

[ $# -ge 4 ] || { echo "usage: bench-idle.sh SECONDS RUNS POSTGRES-URL BINARY..." >&2; exit 2; }
secs=$1 runs=$2 url=$3
shift 3

db=hookrelay_idle_$$
export PGOPTIONS="-c client_min_messages=warning"
work=$(mktemp -d)
trap 'psql -q "$url" -c "DROP DATABASE IF EXISTS $db" >/dev/null 2>&1; rm -rf "$work"' EXIT
dburl=$(printf '%s' "$url" | sed -E "s#/[^/?]*(\?|$)#/$db\1#")
secret="whsec_$(head -c 24 /dev/urandom | base64)"
cat >"$work/hookrelay.yaml" <<EOF
database: $dburl
listen: "127.0.0.1:0"
admin_listen: "127.0.0.1:0"
sources:
  - {name: stripe, verify: stripe, secrets: ["$secret"]}
destinations:
$(for d in 1 2 3 4; do printf '  - {name: d%d, url: "http://127.0.0.1:9/%d", secret: "%s", sources: [stripe]}\n' "$d" "$d" "$secret"; done)
log: {level: warn}
EOF

hz=$(getconf CLK_TCK)
ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
backends() {
	local sum=0 p
	for p in $(pgrep -f "postgres: .* $db "); do sum=$((sum + $(ticks "$p"))); done
	echo "$sum"
}

echo "an idle relay with 4 push destinations on PostgreSQL, CPU over ${secs}s, ms"
for _ in $(seq "$runs"); do
	for bin in "$@"; do
		psql -q "$url" -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db"
		"$bin" serve --config "$work/hookrelay.yaml" >"$work/relay.log" 2>&1 &
		pid=$!
		sleep 5
		r0=$(ticks "$pid") p0=$(backends)
		sleep "$secs"
		r1=$(ticks "$pid") p1=$(backends)
		kill "$pid"
		wait "$pid" 2>/dev/null || true
		printf '%-40s relay %5d  postgres %5d\n' "$bin" $(((r1 - r0) * 1000 / hz)) $(((p1 - p0) * 1000 / hz))
	done
done
