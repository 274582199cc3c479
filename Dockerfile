# syntax=docker/dockerfile:1
#
# One image for every Codali binary: the CLI (codali) and the five services
# (librarian, architect, builder, critic, recorder). Kubernetes Deployments
# choose the binary with `command`; `docker run IMAGE` runs the CLI.
#
# Build from the repository root:
#   docker build -t codali:dev .
#
# The runtime stage carries bubblewrap (bwrap) and util-linux (prlimit):
# every command the builder and critic run from a repository runs in a
# bubblewrap sandbox with resource limits (docs/policy.md, "Sandbox"; the
# pod needs user namespaces, see docs/deployment.md).
#
# The runtime stage carries git and the Go toolchain because the librarian,
# builder and critic materialise repositories with git, and the builder and
# critic run the verification commands of the repositories they work on
# (Go for the bundled example). Add other toolchains here when the
# repositories you verify need them.

ARG GO_IMAGE=golang:1.26
ARG RUNTIME_IMAGE=debian:trixie-slim

############################################################
# build: the Go workspace, all six binaries, static
############################################################
FROM ${GO_IMAGE} AS build
WORKDIR /src
ENV CGO_ENABLED=0 \
    GOTOOLCHAIN=local \
    GOFLAGS=-mod=readonly
# The whole workspace is copied at once (the set of modules in go.work
# changes); BuildKit cache mounts keep module downloads and build results
# between builds.
COPY . .
RUN --mount=type=cache,target=/go/pkg/mod \
    --mount=type=cache,target=/root/.cache/go-build \
    go build -trimpath -ldflags "-s -w" -o /out/ \
      ./cmd/codali \
      ./services/librarian/cmd/librarian \
      ./services/architect/cmd/architect \
      ./services/builder/cmd/builder \
      ./services/critic/cmd/critic \
      ./services/recorder/cmd/recorder

############################################################
# runtime: small Debian with git, CA certificates and Go
############################################################
FROM ${RUNTIME_IMAGE}
ARG CODALI_UID=65532
RUN set -eux; \
    apt-get update; \
    apt-get install -y --no-install-recommends ca-certificates git bubblewrap util-linux; \
    rm -rf /var/lib/apt/lists/*; \
    groupadd --gid "${CODALI_UID}" codali; \
    useradd --uid "${CODALI_UID}" --gid "${CODALI_UID}" --home-dir /home/codali \
      --create-home --shell /usr/sbin/nologin codali; \
    mkdir -p /var/lib/codali/workspaces /var/lib/codali/cache /var/lib/codali/data; \
    chown -R "${CODALI_UID}:${CODALI_UID}" /var/lib/codali

# The Go toolchain of the build stage, for verification commands.
COPY --from=build /usr/local/go /usr/local/go
COPY --from=build /out/ /usr/local/bin/

# Toolchain locations for commands run in workspaces (the workspace package
# passes these variables through and withholds everything else). In
# Kubernetes the root filesystem is read-only: /var/lib/codali/cache and
# /tmp are emptyDir volumes there.
ENV PATH=/usr/local/go/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    HOME=/home/codali \
    GOTOOLCHAIN=local \
    CGO_ENABLED=0 \
    GOPATH=/var/lib/codali/cache/go \
    GOCACHE=/var/lib/codali/cache/go-build \
    CODALI_HTTP=:8080

USER ${CODALI_UID}:${CODALI_UID}
WORKDIR /var/lib/codali
EXPOSE 8080
LABEL org.opencontainers.image.title="codali" \
      org.opencontainers.image.description="Codali event-sourced pipeline for AI coding agents over NATS JetStream" \
      org.opencontainers.image.source="https://github.com/codali-dev/codali"
ENTRYPOINT ["/usr/local/bin/codali"]
