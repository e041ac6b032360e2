#!/usr/bin/env bash
# bench-rows-at-outcome.sh measures, in place, what a delivery leased at
# ingest would cost if it had no row until its outcome: the prototype
# that preceded the deferred rows PostgreSQL now writes (store.Lease). It
# compares the relay at the commit the prototype was made on with the
# same commit and scripts/rows-at-outcome.patch applied — on both
# drivers, ingest reserves the ids of the deliveries it leases (those
# without an ordering key) instead of inserting their rows, and the
# outcome inserts each row whole, done — through scripts/bench-builds.sh.
# The prototype keeps what the rows would hold in the relay's memory and
# has no recovery: a measurement, never a relay to run.
#
# Usage: scripts/bench-rows-at-outcome.sh [sqlite|postgres|both] [postgres-url] [runs] [duration]
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
PATCH=$here/rows-at-outcome.patch exec bash "$here/bench-builds.sh" d33324b209e4 d33324b209e4 "$@"
