#!/usr/bin/env bash
# Fetches, starts and stops a single-node OpenSearch on loopback for tests and CI.
#
#   scripts/opensearch.sh fetch    download the integ-test-zip from Maven Central (once)
#   scripts/opensearch.sh start    fetch if needed, start in the background, wait for yellow
#   scripts/opensearch.sh stop     stop the node started by this script and wait for it
#   scripts/opensearch.sh status   say whether it runs and answers
#
# Environment:
#   OPENSEARCH_VERSION   2.x version of org.opensearch.distribution.integ-test-zip (2.19.6)
#   OPENSEARCH_PORT      HTTP port on 127.0.0.1 (9200)
#   RCS_CACHE_DIR        cache root ($HOME/.cache/rdf-content-service)
#   OPENSEARCH_USER      unprivileged user the node runs as when invoked by root (opensearch)
#   OPENSEARCH_NODE_DIR  where the node's distribution, data, log and pid file live: by default
#                        $RCS_CACHE_DIR/opensearch/node-<version>-<port>, or, as root when the
#                        run user cannot reach the cache (root's home is mode 700),
#                        /var/lib/rdf-content-service/opensearch-<version>-<port>
#   OPENSEARCH_JAVA_HOME, JAVA_HOME  the JDK (17+) to run on; else the `java` on PATH
#   OPENSEARCH_EXTRA_JAVA_OPTS       JVM options added after the 512 MB heap
#
# The integ-test-zip is the core engine without optional modules: no _delete_by_query and no
# painless. It also lacks the analysis-common module, which holds the language analyzers
# (`german`, `english`, …) that language-aware search fields use; the module's jar is on
# Maven Central, and this script installs it into the node with a plugin descriptor. OpenSearch refuses to run as root, so as root the node runs as a system user
# that owns its directory. The disk-watermark allocation check is off because test machines
# can have nearly full disks, and a yellow single-node cluster is all the tests need.
set -euo pipefail

VERSION="${OPENSEARCH_VERSION:-2.19.6}"
PORT="${OPENSEARCH_PORT:-9200}"
CACHE_DIR="${RCS_CACHE_DIR:-$HOME/.cache/rdf-content-service}/opensearch"
RUN_USER="${OPENSEARCH_USER:-opensearch}"
ARTIFACT="org.opensearch.distribution.integ-test-zip:opensearch:${VERSION}:zip"
ZIP="$CACHE_DIR/opensearch-${VERSION}.zip"
ANALYSIS_ARTIFACT="org.opensearch.plugin:analysis-common:${VERSION}:jar"
ANALYSIS_JAR="$CACHE_DIR/analysis-common-${VERSION}.jar"
START_TIMEOUT_SECONDS=180
STOP_TIMEOUT_SECONDS=60
BASE_URL="http://127.0.0.1:${PORT}"

log() { printf 'opensearch.sh: %s\n' "$*" >&2; }
die() {
  log "$*"
  exit 1
}

is_root() { [ "$(id -u)" -eq 0 ]; }

# The node directory must be reachable by the user that runs the node. Root's home is
# usually mode 700, so when root's cache cannot be traversed by that user the node lives
# under /var/lib instead (the zip stays in the cache either way).
node_dir() {
  if [ -n "${OPENSEARCH_NODE_DIR:-}" ]; then
    printf '%s\n' "$OPENSEARCH_NODE_DIR"
  elif is_root && ! user_can_reach "$CACHE_DIR"; then
    printf '%s\n' "/var/lib/rdf-content-service/opensearch-${VERSION}-${PORT}"
  else
    printf '%s\n' "$CACHE_DIR/node-${VERSION}-${PORT}"
  fi
}

# True if every ancestor of $1 that exists can be traversed by others (the run user is
# neither owner nor group member of root's directories).
user_can_reach() {
  local path="$1"
  while [ "$path" != "/" ] && [ -n "$path" ]; do
    if [ -d "$path" ] && [ "$(stat -c %U "$path")" != "$RUN_USER" ]; then
      local mode
      mode="$(stat -c %a "$path")"
      (((8#$mode & 1) == 1)) || return 1
    fi
    path="$(dirname "$path")"
  done
}

NODE_DIR="$(node_dir)"
DIST_DIR="$NODE_DIR/opensearch-${VERSION}"
PID_FILE="$NODE_DIR/opensearch.pid"
LOG_FILE="$NODE_DIR/opensearch.log"

fetch() {
  fetch_artifact "$ARTIFACT" "$ZIP"
  fetch_artifact "$ANALYSIS_ARTIFACT" "$ANALYSIS_JAR"
}

# fetch_artifact GROUP:ARTIFACT:VERSION:TYPE DEST: copies one artifact from Maven Central once.
fetch_artifact() {
  local artifact="$1" dest="$2"
  if [ -f "$dest" ]; then
    log "have $dest"
    return
  fi
  command -v mvn >/dev/null || die "mvn not found: install Maven (and Java 17)"
  mkdir -p "$CACHE_DIR"
  local staging
  staging="$(mktemp -d "$CACHE_DIR/fetch.XXXXXX")"
  log "fetching $artifact"
  if ! mvn -q -B -Dstyle.color=never org.apache.maven.plugins:maven-dependency-plugin:3.8.1:copy \
    -Dartifact="$artifact" -DoutputDirectory="$staging" -Dmdep.overWriteReleases=true \
    >"$staging.log" 2>&1; then
    cat "$staging.log" >&2
    rm -rf "$staging" "$staging.log"
    die "could not fetch $artifact from Maven Central"
  fi
  rm -f "$staging.log"
  mv "$staging"/* "$dest"
  rm -rf "$staging"
  log "saved $dest"
}

# The language analyzers: the analysis-common module, as the full distribution ships it.
install_analysis_module() {
  local module="$DIST_DIR/modules/analysis-common"
  [ -f "$module/plugin-descriptor.properties" ] && return
  mkdir -p "$module"
  cp "$ANALYSIS_JAR" "$module/"
  cat >"$module/plugin-descriptor.properties" <<DESCRIPTOR
description=Adds the built-in analyzers, tokenizers and filters (languages, stemming).
version=${VERSION}
name=analysis-common
classname=org.opensearch.analysis.common.CommonAnalysisPlugin
java.version=11
opensearch.version=${VERSION}
custom.foldername=
extended.plugins=
has.native.controller=false
DESCRIPTOR
}

ensure_run_user() {
  is_root || return 0
  if ! id -u "$RUN_USER" >/dev/null 2>&1; then
    log "creating system user $RUN_USER"
    useradd --system --user-group --no-create-home --home-dir /nonexistent \
      --shell /usr/sbin/nologin "$RUN_USER"
  fi
}

install_node() {
  fetch
  ensure_run_user
  if [ ! -x "$DIST_DIR/bin/opensearch" ]; then
    mkdir -p "$NODE_DIR"
    local staging
    staging="$(mktemp -d "$NODE_DIR/unzip.XXXXXX")"
    unzip -q "$ZIP" -d "$staging"
    mv "$staging/opensearch-${VERSION}" "$DIST_DIR"
    rm -rf "$staging"
  fi
  install_analysis_module
  if is_root; then chown -R "$RUN_USER:" "$NODE_DIR"; fi
}

# The integ-test-zip bundles no JDK: use JAVA_HOME, else the `java` on PATH.
java_home() {
  if [ -n "${JAVA_HOME:-}" ]; then
    printf '%s\n' "$JAVA_HOME"
    return
  fi
  local java
  java="$(command -v java)" || die "java not found: install Java 17 or set JAVA_HOME"
  dirname "$(dirname "$(readlink -f "$java")")"
}

running_pid() {
  [ -f "$PID_FILE" ] || return 1
  local pid
  pid="$(cat "$PID_FILE" 2>/dev/null || true)"
  [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null || return 1
  printf '%s\n' "$pid"
}

answers() {
  curl -fsS --max-time 10 "$BASE_URL/_cluster/health?wait_for_status=yellow&timeout=5s" \
    >/dev/null 2>&1
}

start() {
  if pid="$(running_pid)"; then
    wait_until_healthy "$pid"
    log "already running (pid $pid) at $BASE_URL"
    return
  fi
  if answers; then
    die "something not started by this script already answers at $BASE_URL"
  fi
  install_node
  rm -f "$PID_FILE"
  : >"$LOG_FILE"
  if is_root; then chown "$RUN_USER:" "$LOG_FILE"; fi
  local -a as_user=()
  if is_root; then
    # setpriv execs in place, so the background pid is the node's own pid.
    as_user=(setpriv "--reuid=$RUN_USER" "--regid=$RUN_USER" --init-groups --)
  fi
  log "starting OpenSearch $VERSION at $BASE_URL (log: $LOG_FILE)"
  (
    cd "$DIST_DIR"
    export HOME="$NODE_DIR"
    export JAVA_HOME="${OPENSEARCH_JAVA_HOME:-$(java_home)}"
    export OPENSEARCH_JAVA_OPTS="-Xms512m -Xmx512m ${OPENSEARCH_EXTRA_JAVA_OPTS:-}"
    exec "${as_user[@]}" "$DIST_DIR/bin/opensearch" -p "$PID_FILE" \
      -Ediscovery.type=single-node \
      -Enetwork.host=127.0.0.1 \
      -Ehttp.port="$PORT" \
      -Etransport.port="$((PORT + 100))" \
      -Ecluster.name=rdf-content-service-test \
      -Ecluster.routing.allocation.disk.threshold_enabled=false \
      -Epath.data="$NODE_DIR/data" \
      -Epath.logs="$NODE_DIR/logs" \
      </dev/null >>"$LOG_FILE" 2>&1
  ) &
  local launcher=$!
  wait_until_healthy "$launcher"
  log "ready (pid $(cat "$PID_FILE")) in ${SECONDS}s"
}

wait_until_healthy() {
  local pid="$1" deadline=$((SECONDS + START_TIMEOUT_SECONDS))
  until answers; do
    if ! kill -0 "$pid" 2>/dev/null; then
      log "OpenSearch exited during start-up; last log lines:"
      tail -n 40 "$LOG_FILE" >&2 || true
      exit 1
    fi
    if [ "$SECONDS" -ge "$deadline" ]; then
      log "OpenSearch did not reach yellow within ${START_TIMEOUT_SECONDS}s; last log lines:"
      tail -n 40 "$LOG_FILE" >&2 || true
      exit 1
    fi
    sleep 1
  done
  [ -f "$PID_FILE" ] || sleep 1
}

stop() {
  local pid
  if ! pid="$(running_pid)"; then
    log "not running"
    rm -f "$PID_FILE"
    return
  fi
  log "stopping pid $pid"
  kill -TERM "$pid"
  local deadline=$((SECONDS + STOP_TIMEOUT_SECONDS))
  while kill -0 "$pid" 2>/dev/null; do
    if [ "$SECONDS" -ge "$deadline" ]; then
      log "still running after ${STOP_TIMEOUT_SECONDS}s: sending KILL"
      kill -KILL "$pid" 2>/dev/null || true
    fi
    sleep 0.5
  done
  rm -f "$PID_FILE"
  log "stopped"
}

status() {
  local pid
  if pid="$(running_pid)"; then
    if answers; then
      log "running (pid $pid) and healthy at $BASE_URL"
    else
      log "running (pid $pid) but not answering at $BASE_URL"
      return 1
    fi
  else
    log "not running"
    return 3
  fi
}

case "${1:-}" in
  fetch) fetch ;;
  start) start ;;
  stop) stop ;;
  status) status ;;
  *) die "usage: $0 {fetch|start|stop|status}" ;;
esac
