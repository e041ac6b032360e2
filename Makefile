# hookrelay developer targets. See README.md, "Contributing".

GO ?= go

.PHONY: build run test lint bench bench-memory bench-deliver bench-sustained bench-scaleout bench-console bench-prune bench-hot-path bench-idle bench-live-queue bench-drain-leases bench-rows-at-outcome bench-deferred soak fuzz

# The binary records the commit it was built from (`hookrelay version`).
build:
	$(GO) build -ldflags "-X github.com/hookrelay/hookrelay/internal/cli.Commit=$$(git rev-parse HEAD)" -o bin/hookrelay ./cmd/hookrelay

run:
	$(GO) run ./cmd/hookrelay serve --config examples/hookrelay.yaml

# The whole suite, on SQLite and on a fresh PostgreSQL database.
test:
	./scripts/test.sh

# gofmt, go vet, and go.mod/go.sum exactly as `go mod tidy` would write them.
lint:
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || (gofmt -l $$(git ls-files '*.go'); exit 1)
	$(GO) vet ./...
	$(GO) mod tidy -diff
	cd browsertest && $(GO) vet ./... && $(GO) mod tidy -diff

# Ingest throughput and latency against a no-op handler, both drivers.
bench:
	$(GO) run ./cmd/hookrelay-bench ingest --driver both --senders 32 --duration 10s

bench-memory:
	$(GO) run ./cmd/hookrelay-bench memory --driver sqlite --concurrency 256

# Delivery drain rate against a plain client, ingest-to-delivery latency,
# and claim cost with 5 million done rows (PostgreSQL; takes minutes).
bench-deliver:
	$(GO) run ./cmd/hookrelay-bench deliver --driver both

# Every console page over 10 000 and 5 000 000 stored events, on SQLite
# and PostgreSQL (HOOKRELAY_TEST_POSTGRES_URL; skipped without it); the
# logs, with attempts, failures and a backlog, are seeded with SQL
# (internal/testkit/bulkseed). Takes about 10 min on a shared 2-core
# machine and a few GB of disk a driver while it runs.
bench-console:
	$(GO) test -run '^$$' -bench 'BenchmarkEventsPage' -benchtime 10x -timeout 150m ./internal/console

# The drain against a plain client, then the highest ingest rate whose
# deliveries keep up with 1 and with 4 push destinations, 60 s per rate,
# each beside a run whose events go to no destination: the CPU a delivery
# leased at ingest costs, against a plain request (takes many minutes).
bench-sustained:
	$(GO) run ./cmd/hookrelay-bench sustained --driver both --destinations 0,1,4 --rates 500,1000,2000 --duration 60s --deliveries 30000

# What a delivery costs against a plain HTTP client, three runs, the
# drivers taking turns: the drain, then 2 000 events/s to 4 destinations
# and to none for 60 s each; prints the medians (about 20 minutes).
bench-hot-path:
	$(GO) run ./cmd/hookrelay-bench sustained --driver both --destinations 0,4 --rates 2000 --duration 60s --deliveries 30000 --latency-events 100 --runs 3

# What an idle relay with four push destinations costs itself and the
# PostgreSQL server over 30 s, this build (takes a minute).
bench-idle: build
	bash scripts/bench-idle.sh 30 2 postgres://postgres@127.0.0.1:5432/postgres bin/hookrelay

# On PostgreSQL, a delivery's life in one table against a narrow live
# queue beside an insert-only history (takes seconds).
bench-live-queue:
	bash scripts/bench-live-queue.sh postgres://postgres@127.0.0.1:5432/postgres 64000 3

# On PostgreSQL, the statements of a drain in one backend: leases written
# on each delivery's row (today) against one lease row a claimed batch
# (takes seconds).
bench-drain-leases:
	bash scripts/bench-drain-leases.sh postgres://postgres@127.0.0.1:5432/postgres 64000 3

# In place, on both drivers: the CPU per delivery leased at ingest with
# rows written at ingest (today) and, in a prototype, at outcome (about
# 15 minutes).
bench-rows-at-outcome:
	bash scripts/bench-rows-at-outcome.sh both postgres://postgres@127.0.0.1:5432/postgres 3 20s

# In place, on PostgreSQL: the CPU per delivery leased at ingest before
# (rows written at ingest) and after the deferred rows written at outcome.
bench-deferred:
	bash scripts/bench-builds.sh da1fa80 HEAD postgres postgres://postgres@127.0.0.1:5432/postgres 3 20s

# On PostgreSQL, the drain by 1, 2 and 4 processes started with
# --role worker on one database, then the ingest rate of 1 and 2 started
# with --role receiver; needs PostgreSQL at the default --postgres-url
# (takes a few minutes).
bench-scaleout:
	$(GO) run ./cmd/hookrelay-bench scaleout --workers 1,2,4 --receivers 1,2 --deliveries 100000 --duration 10s

# On PostgreSQL, retiring one day of 1 and of 5 million done deliveries
# (4 per event, seeded with SQL): the row-level prune of one table, the
# drop of the day's partitions, and the conversion of the table to
# partitions; wall time, lock held, WAL and size (about 30 min, 10 GB of
# disk while it runs; PostgreSQL at the default --postgres-url).
bench-prune:
	$(GO) run ./cmd/hookrelay-bench prune --deliveries 1000000,5000000 --destinations 4

# The crash scenario for as long as asked (not in CI).
soak:
	$(GO) run ./cmd/hookrelay-soak --duration 10m

# A short fuzzing pass over every fuzz target (the seed corpora run in `test`).
fuzz:
	./scripts/fuzz.sh 30s
