# plandash as a container image: a static binary on distroless, running as a non-root user.
#
#   docker build -t plandash .
#   docker run --rm -p 7420:7420 -v plandash-data:/data plandash serve --addr 0.0.0.0:7420
#
# deploy/compose/ runs two of these on PostgreSQL behind nginx; docs/team.md explains it.

FROM golang:1.26-bookworm AS build
WORKDIR /src
# Modules first: the layer is reused while only the source changes.
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=dev
# modernc.org/sqlite is pure Go, so CGO stays off and the binary needs no libc.
RUN CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X main.version=${VERSION}" -o /out/plandash ./cmd/plandash \
	&& mkdir -p /out/data /out/plans

FROM gcr.io/distroless/static-debian12:nonroot
# The data directory (token, SQLite when no --db) and the shared plans directory belong to the
# image's non-root user, so named volumes mounted there start out writable by it.
COPY --from=build --chown=65532:65532 /out/data /data
COPY --from=build --chown=65532:65532 /out/plans /plans
COPY --from=build /out/plandash /usr/local/bin/plandash
USER 65532:65532
ENV HOME=/data XDG_DATA_HOME=/data PLANDASH_PLANS_DIR=/plans
EXPOSE 7420
VOLUME ["/data"]
ENTRYPOINT ["/usr/local/bin/plandash"]
CMD ["serve", "--addr", "0.0.0.0:7420", "--data", "/data"]
