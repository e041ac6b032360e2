# syntax=docker/dockerfile:1
#
# hookrelay's container image: a static binary on a distroless, non-root
# base. SQLite data lives on the /var/lib/hookrelay volume; set
# HOOKRELAY_DATABASE to a postgres:// URL to use PostgreSQL instead.
#
#   docker build -t hookrelay .
#
# Offline, from this machine's module cache (no network needed when the
# cache holds every module in go.sum and the base images are present):
#
#   docker build --build-context gomodcache="$(go env GOMODCACHE)" \
#     --build-arg GOPROXY=off -t hookrelay .

ARG GO_VERSION=1.26.8

# The module cache the build starts from: empty unless a build context named
# gomodcache replaces it (see above).
FROM scratch AS gomodcache

FROM golang:${GO_VERSION}-bookworm AS build
ARG GOPROXY=https://proxy.golang.org,direct
ARG VERSION=dev
ENV GOPROXY=${GOPROXY} GOFLAGS=-mod=readonly
WORKDIR /src
COPY . .
# The same script CI runs, so the image runs the binary CI built and tested.
RUN --mount=type=bind,from=gomodcache,target=/go/pkg/mod,rw \
    --mount=type=cache,target=/root/.cache/go-build \
    ./scripts/build-static.sh /out/hookrelay "${VERSION}" \
 && mkdir -p /out/data

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/hookrelay /usr/local/bin/hookrelay
COPY deploy/container.yaml /etc/hookrelay/hookrelay.yaml
# A fresh named volume takes this directory's owner: the nonroot user.
COPY --from=build --chown=65532:65532 /out/data /var/lib/hookrelay
VOLUME /var/lib/hookrelay
USER 65532:65532
# 8080: the public ingest listener. 8081: the admin API and /metrics; never
# publish it beyond the hosts that operate the relay.
EXPOSE 8080 8081
# No shell or curl here: the binary asks the admin listener's /readyz.
HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=3 \
  CMD ["/usr/local/bin/hookrelay", "health", "--url", "http://127.0.0.1:8081/readyz"]
ENTRYPOINT ["/usr/local/bin/hookrelay"]
CMD ["serve", "--config", "/etc/hookrelay/hookrelay.yaml"]
