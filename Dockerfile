# syntax=docker/dockerfile:1
# rdf-content-service: build with Deno, compile one executable, run it as a non-root user.
#
#   docker build -t rdf-content-service .
#   docker run -p 8080:8080 -v rcs-data:/data -e SERVICE_ADMIN_TOKEN=... rdf-content-service
#
# Configuration: environment variables (docs/configuration.md), over the shipped
# customer.yml copied to /app/customer.yml; mount your own there for workspaces and
# collections of your own. Listening on 0.0.0.0 needs access tokens: SERVICE_ADMIN_TOKEN,
# SERVICE_EDITOR_TOKEN and SERVICE_READER_TOKEN each add one (at least 16 characters), beside
# any in service.security.tokens; without any the service refuses to start.

ARG DENO_VERSION=2.9.6

FROM denoland/deno:${DENO_VERSION} AS build
WORKDIR /src
# The lock file pins every npm package, transitive ones included; --frozen fails the build
# rather than resolve a version the lock does not name.
COPY deno.json deno.lock ./
COPY src ./src
RUN deno install --frozen --entrypoint src/main.ts src/store_embedded/sparql_worker.ts src/items/rdf_worker.ts \
      src/index_batch_worker.ts
# deno compile fetches the denort runtime for this Deno version from dl.deno.land (the
# denoland/deno image does not carry it): this step needs internet access.
RUN deno compile --frozen --allow-net --allow-read --allow-write --allow-env --allow-sys --allow-ffi \
      --v8-flags=--max-old-space-size=1024 --unstable-raw-imports \
      --include src/store_embedded/sparql_worker.ts --include src/items/rdf_worker.ts \
      --include src/index_batch_worker.ts --output /out/rdf-content-service src/main.ts

FROM debian:bookworm-slim
RUN useradd --system --uid 10001 --home-dir /app --shell /usr/sbin/nologin rcs \
 && mkdir -p /app /data && chown rcs /data
COPY --from=build /out/rdf-content-service /app/rdf-content-service
COPY customer.yml /app/customer.yml
WORKDIR /app
USER rcs
ENV SERVICE_HTTP_HOST=0.0.0.0 \
    SERVICE_HTTP_PORT=8080 \
    SERVICE_DATA_DIR=/data
VOLUME ["/data"]
EXPOSE 8080
HEALTHCHECK --interval=30s --timeout=5s --start-period=10s --retries=3 \
  CMD ["/app/rdf-content-service", "--health-check"]
ENTRYPOINT ["/app/rdf-content-service"]
