#!/usr/bin/env bash
# Runs hookrelay's whole test suite against real databases: SQLite files in
# temporary directories, and a fresh PostgreSQL database created for this run
# (started first if this machine has a stopped local cluster) and dropped
# afterwards. Extra arguments go to `go test`.
set -euo pipefail
cd "$(dirname "$0")/.."

pg_host=${PGHOST:-127.0.0.1}
pg_port=${PGPORT:-5432}
pg_user=${PGUSER:-postgres}

pg_up() { pg_isready -q -h "$pg_host" -p "$pg_port" 2>/dev/null; }

if [ -z "${HOOKRELAY_TEST_POSTGRES_URL:-}" ]; then
  if ! pg_up && command -v pg_ctlcluster >/dev/null && [ -d /etc/postgresql ]; then
    echo "starting PostgreSQL"
    pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -n1)" main start || true
    for _ in $(seq 1 30); do pg_up && break; sleep 1; done
  fi
  if pg_up; then
    db="hookrelay_test_$(date +%s)_$$"
    psql -q -h "$pg_host" -p "$pg_port" -U "$pg_user" -d postgres -c "CREATE DATABASE $db" >/dev/null
    trap 'psql -q -h "$pg_host" -p "$pg_port" -U "$pg_user" -d postgres -c "DROP DATABASE IF EXISTS $db WITH (FORCE)" >/dev/null 2>&1 || true' EXIT
    export HOOKRELAY_TEST_POSTGRES_URL="postgres://$pg_user@$pg_host:$pg_port/$db?sslmode=disable"
    echo "PostgreSQL suite: database $db"
  elif [ "${HOOKRELAY_REQUIRE_POSTGRES:-}" = 1 ]; then
    # CI: the PostgreSQL suite (the exactly-once proof among it) must run.
    echo "PostgreSQL is not reachable at $pg_host:$pg_port and HOOKRELAY_REQUIRE_POSTGRES=1: its suite cannot run" >&2
    exit 1
  else
    echo "PostgreSQL is not reachable at $pg_host:$pg_port: its suite will be skipped" >&2
  fi
fi

# The longest packages are named first: go test starts packages in the order
# given (two at a time on two cores), and one of these started last would
# keep the run going long after the others.
longest=(./e2e ./e2e/reliability ./internal/store/sqlite ./internal/store/postgres ./internal/console)
# The race detector turns on checkptr, which checks every unsafe pointer
# conversion. The SQLite driver is C translated to Go and converts
# pointers in every statement it runs, so under checkptr it spends two
# thirds of its time checking its own code (a conformance case took 12 s
# instead of 4). Its code is not ours to check; race detection stays on
# everywhere, checkptr stays on for every other package.
nocheckptr=(-gcflags='modernc.org/...=-d=checkptr=0')
go test -race "${nocheckptr[@]}" -count=1 -timeout 25m "$@" "${longest[@]}" ./...
# The browser tests are a module of their own (see browsertest/doc.go).
(cd browsertest && go test -race "${nocheckptr[@]}" -count=1 -timeout 10m "$@" ./...)
