#!/usr/bin/env bash
# Fetches, starts and stops Apache Jena Fuseki on loopback for tests and CI.
#
#   scripts/fuseki.sh fetch    download jena-fuseki-server from Maven Central (once)
#   scripts/fuseki.sh start    fetch if needed, start in the background, wait until it answers
#   scripts/fuseki.sh stop     stop the server started by this script and wait for it
#   scripts/fuseki.sh status   say whether it runs and answers (exit 3 when it does not)
#   scripts/fuseki.sh env      print the SERVICE_SPARQL_* variables that point at it
#
# Environment:
#   FUSEKI_VERSION      5.x version of org.apache.jena:jena-fuseki-server (5.6.0; Jena 6
#                       needs Java 21, Jena 5 runs on Java 17)
#   FUSEKI_PORT         HTTP port on 127.0.0.1 (3030)
#   FUSEKI_DATASET      dataset path (ds): endpoints are /ds/query, /ds/update, /ds/data
#   FUSEKI_HEAP         maximum Java heap (512m)
#   FUSEKI_TDB2_DIR     when set, a persistent TDB2 dataset in this directory; otherwise the
#                       dataset is in memory and empty after every start
#   FUSEKI_UNION_DEFAULT_GRAPH  "true": queries see the union of the named graphs as their
#                       default graph, and the stored default graph only by the name
#                       urn:x-arq:DefaultGraph (TDB2 only: the in-memory dataset ignores it).
#                       The recommended dataset for the service, see docs/backends.md
#   FUSEKI_CONFIG       when set, the server's datasets come from this Fuseki configuration
#                       (assembler) file instead (FUSEKI_DATASET, FUSEKI_TDB2_DIR and
#                       FUSEKI_UNION_DEFAULT_GRAPH do not apply): a bench's jena-text dataset
#   FUSEKI_PASSWD_FILE  when set, HTTP basic auth for every endpoint, users from this file
#                       (lines of "user: password")
#   FUSEKI_RUN_DIR      pid file and log ($RCS_CACHE_DIR/fuseki/run-$FUSEKI_PORT), so that
#                       instances on different ports do not collide
#   RCS_CACHE_DIR       cache root ($HOME/.cache/rdf-content-service)
set -euo pipefail

SERVICE_NAME="fuseki.sh"
# shellcheck source=lib/java_service.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/java_service.sh"

VERSION="${FUSEKI_VERSION:-5.6.0}"
PORT="${FUSEKI_PORT:-3030}"
DATASET="${FUSEKI_DATASET:-ds}"
HEAP="${FUSEKI_HEAP:-512m}"
CACHE_DIR="${RCS_CACHE_DIR:-${HOME:-/tmp}/.cache/rdf-content-service}/fuseki"
RUN_DIR="${FUSEKI_RUN_DIR:-$CACHE_DIR/run-$PORT}"
JAR="$CACHE_DIR/jena-fuseki-server-${VERSION}.jar"
PID_FILE="$RUN_DIR/fuseki.pid"
LOG_FILE="$RUN_DIR/fuseki.log"
BASE_URL="http://127.0.0.1:${PORT}"
START_TIMEOUT_SECONDS=120
STOP_TIMEOUT_SECONDS=30

fetch() {
  jsvc_maven_fetch "org.apache.jena:jena-fuseki-server:${VERSION}:jar" "$JAR"
}

start() {
  local pid
  if pid="$(jsvc_running_pid "$PID_FILE" "$JAR")"; then
    jsvc_log "already running (pid $pid) on $BASE_URL/$DATASET"
    return 0
  fi
  jsvc_require_java 17
  jsvc_require_commands setsid nohup
  fetch
  if [ "$(jsvc_http_status "$BASE_URL/")" != "000" ]; then
    jsvc_die "port $PORT is already in use by another program; set FUSEKI_PORT"
  fi

  local args=(--localhost --port="$PORT" --ping)
  if [ -n "${FUSEKI_CONFIG:-}" ]; then
    [ -r "$FUSEKI_CONFIG" ] || jsvc_die "FUSEKI_CONFIG '$FUSEKI_CONFIG' is not readable"
    args+=(--config="$FUSEKI_CONFIG")
  elif [ -n "${FUSEKI_TDB2_DIR:-}" ]; then
    mkdir -p "$FUSEKI_TDB2_DIR"
    args+=(--tdb2 --loc="$FUSEKI_TDB2_DIR")
  else
    args+=(--mem)
  fi
  [ -n "${FUSEKI_CONFIG:-}" ] || args+=(--update)
  if [ "${FUSEKI_UNION_DEFAULT_GRAPH:-}" = "true" ]; then
    [ -n "${FUSEKI_TDB2_DIR:-}" ] ||
      jsvc_die "FUSEKI_UNION_DEFAULT_GRAPH needs FUSEKI_TDB2_DIR: the in-memory dataset has no union default graph"
    args+=(--set=tdb:unionDefaultGraph=true)
  fi
  if [ -n "${FUSEKI_PASSWD_FILE:-}" ]; then
    [ -r "$FUSEKI_PASSWD_FILE" ] || jsvc_die "FUSEKI_PASSWD_FILE '$FUSEKI_PASSWD_FILE' is not readable"
    args+=(--passwd="$FUSEKI_PASSWD_FILE" --auth=basic)
  fi
  [ -n "${FUSEKI_CONFIG:-}" ] || args+=("/$DATASET")

  mkdir -p "$RUN_DIR"
  : >"$LOG_FILE"
  jsvc_log "starting Fuseki $VERSION on $BASE_URL/$DATASET (log: $LOG_FILE)"
  # setsid + nohup: the server outlives this script and the CI step that ran it. The run
  # directory is the working directory because Fuseki may create files relative to it.
  (
    cd "$RUN_DIR"
    FUSEKI_BASE="$RUN_DIR" exec setsid nohup java "-Xmx$HEAP" -jar "$JAR" "${args[@]}" \
      </dev/null >>"$LOG_FILE" 2>&1
  ) &
  pid=$!
  printf '%s\n' "$pid" >"$PID_FILE"

  local started
  started="$(date +%s)"
  if ! jsvc_wait_http "$BASE_URL/\$/ping" "$pid" "$LOG_FILE" "$START_TIMEOUT_SECONDS"; then
    jsvc_stop_pid "$pid" 5
    rm -f "$PID_FILE"
    jsvc_die "Fuseki did not start"
  fi
  jsvc_log "ready after $(($(date +%s) - started))s (pid $pid)"
}

stop() {
  local pid
  if ! pid="$(jsvc_running_pid "$PID_FILE" "$JAR")"; then
    jsvc_log "not running on port $PORT"
    rm -f "$PID_FILE"
    return 0
  fi
  jsvc_log "stopping pid $pid"
  jsvc_stop_pid "$pid" "$STOP_TIMEOUT_SECONDS"
  rm -f "$PID_FILE"
  jsvc_log "stopped"
}

status() {
  local pid
  if ! pid="$(jsvc_running_pid "$PID_FILE" "$JAR")"; then
    echo "Fuseki is not running on port $PORT"
    return 3
  fi
  local ping
  ping="$(jsvc_http_status "$BASE_URL/\$/ping")"
  echo "Fuseki $VERSION is running (pid $pid) on $BASE_URL/$DATASET; ping answered HTTP $ping"
}

print_env() {
  echo "export SERVICE_SPARQL_QUERY_URL=$BASE_URL/$DATASET/query"
  echo "export SERVICE_SPARQL_UPDATE_URL=$BASE_URL/$DATASET/update"
  echo "export SERVICE_SPARQL_GSP_URL=$BASE_URL/$DATASET/data"
}

case "${1:-}" in
  fetch) fetch ;;
  start) start ;;
  stop) stop ;;
  status) status ;;
  env) print_env ;;
  *)
    echo "usage: $0 {fetch|start|stop|status|env}" >&2
    exit 2
    ;;
esac
