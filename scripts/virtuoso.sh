#!/usr/bin/env bash
# Starts and stops a private OpenLink Virtuoso 7.2 (Debian's virtuoso-opensource package) on
# loopback for tests and CI, from a generated virtuoso.ini in its own run directory: the
# package's own service (ports 1111/8890, /var/lib/virtuoso-opensource-7) is neither used
# nor needed.
#
#   scripts/virtuoso.sh start    start in the background, set up the accounts, wait until it answers
#   scripts/virtuoso.sh stop     stop the server started by this script and wait for it
#   scripts/virtuoso.sh status   say whether it runs and answers (exit 3 when it does not)
#   scripts/virtuoso.sh env      print the SERVICE_SPARQL_* variables that point at it
#
# The query limits are Virtuoso's stock ones (ResultSetMaxRows 10000, MaxQueryExecutionTime 60,
# the sort limit of 10000 rows) on purpose: the service must work on a store as users install
# it. The server's size is not: the suite runs several services against this one server at
# once, and the stock 10 HTTP threads run out (Virtuoso logs "No Web Server threads
# available" and requests wait past the service's 30 s timeout), so the HTTP threads and
# connections are 48 and the buffers those Virtuoso advises for 1 GB of RAM
# (docs/backends.md, "Virtuoso"). Accounts (docs/backends.md, "Virtuoso"):
#   rcs         SPARQL_UPDATE; the service's own account, through /sparql-auth and
#               /sparql-graph-crud-auth (digest authentication, Virtuoso's only scheme there)
#   rcs_reader  SPARQL_SELECT, reads every graph but the private ones: the account of user
#               queries (/sparql, the query tool), so they never see the service's metadata
#               graph nor Virtuoso's system graphs
#   nobody      (the anonymous /sparql endpoint) reads nothing
#
# Environment:
#   VIRTUOSO_HTTP_PORT     HTTP port on 127.0.0.1 (8891)
#   VIRTUOSO_SQL_PORT      SQL (isql) port on 127.0.0.1 (1112)
#   VIRTUOSO_RUN_DIR       database, ini, pid file and log ($RCS_CACHE_DIR/virtuoso/run-$PORT)
#   VIRTUOSO_FRESH         "true": delete the database before starting (default: keep it)
#   VIRTUOSO_PASSWORD      password of rcs and rcs_reader (rcs-secret)
#   VIRTUOSO_METADATA_GRAPH  the service's metadata graph, made private
#                          (urn:rdf-content-service:meta)
#   VIRTUOSO_READ_ONLY     "true": rcs gets SPARQL_SELECT only (for the capability test)
#   RCS_CACHE_DIR          cache root ($HOME/.cache/rdf-content-service)
set -euo pipefail

SERVICE_NAME="virtuoso.sh"
# shellcheck source=lib/java_service.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/java_service.sh"

HTTP_PORT="${VIRTUOSO_HTTP_PORT:-8891}"
SQL_PORT="${VIRTUOSO_SQL_PORT:-1112}"
CACHE_DIR="${RCS_CACHE_DIR:-${HOME:-/tmp}/.cache/rdf-content-service}/virtuoso"
RUN_DIR="${VIRTUOSO_RUN_DIR:-$CACHE_DIR/run-$HTTP_PORT}"
PASSWORD="${VIRTUOSO_PASSWORD:-rcs-secret}"
METADATA_GRAPH="${VIRTUOSO_METADATA_GRAPH:-urn:rdf-content-service:meta}"
PID_FILE="$RUN_DIR/virtuoso.pid"
LOG_FILE="$RUN_DIR/virtuoso.out"
INI="$RUN_DIR/virtuoso.ini"
BASE_URL="http://127.0.0.1:${HTTP_PORT}"
START_TIMEOUT_SECONDS=120
STOP_TIMEOUT_SECONDS=60
BINARY="virtuoso-t"
ISQL="isql-vt"

write_ini() {
  # Debian's virtuoso.ini with this instance's paths and loopback ports.
  cat >"$INI" <<EOF
[Database]
DatabaseFile = $RUN_DIR/db/virtuoso.db
ErrorLogFile = $RUN_DIR/db/virtuoso.log
LockFile = $RUN_DIR/db/virtuoso.lck
TransactionFile = $RUN_DIR/db/virtuoso.trx
xa_persistent_file = $RUN_DIR/db/virtuoso.pxa
ErrorLogLevel = 7
FileExtend = 200
MaxCheckpointRemap = 2000
Striping = 0
TempStorage = TempDatabase

[TempDatabase]
DatabaseFile = $RUN_DIR/db/virtuoso-temp.db
TransactionFile = $RUN_DIR/db/virtuoso-temp.trx
MaxCheckpointRemap = 2000
Striping = 0

[Parameters]
ServerPort = 127.0.0.1:$SQL_PORT
LiteMode = 0
DisableUnixSocket = 1
DisableTcpSocket = 0
MaxClientConnections = 64
CheckpointInterval = 60
O_DIRECT = 0
CaseMode = 2
MaxStaticCursorRows = 5000
CheckpointAuditTrail = 0
AllowOSCalls = 0
SchedulerInterval = 10
DirsAllowed = ., /usr/share/virtuoso-opensource-7/vad
ThreadCleanupInterval = 0
ThreadThreshold = 10
ResourcesCleanupInterval = 0
FreeTextBatchSize = 100000
SingleCPU = 0
VADInstallDir = /usr/share/virtuoso-opensource-7/vad/
PrefixResultNames = 0
RdfFreeTextRulesSize = 100
IndexTreeMaps = 64
MaxQueryMem = 2G
VectorSize = 1000
MaxVectorSize = 1000000
AdjustVectorSize = 0
ThreadsPerQuery = 4
AsyncQueueMaxThreads = 10
NumberOfBuffers = 85000
MaxDirtyBuffers = 65000

[HTTPServer]
ServerPort = 127.0.0.1:$HTTP_PORT
ServerRoot = /var/lib/virtuoso-opensource-7/vsp
MaxClientConnections = 48
DavRoot = DAV
EnabledDavVSP = 0
HTTPProxyEnabled = 0
TempASPXDir = 0
ServerThreads = 48
MaxKeepAlives = 48
KeepAliveTimeout = 10
MaxCachedProxyConnections = 10
ProxyConnectionCacheTimeout = 15
HTTPThreadSize = 280000
HttpPrintWarningsInOutput = 0
Charset = UTF-8
EnabledGzipContent = 1

[Client]
SQL_PREFETCH_ROWS = 100
SQL_PREFETCH_BYTES = 16000
SQL_QUERY_TIMEOUT = 0
SQL_TXN_TIMEOUT = 0

[SPARQL]
ResultSetMaxRows = 10000
MaxQueryCostEstimationTime = 400
MaxQueryExecutionTime = 60
DefaultQuery = select distinct ?Concept where {[] a ?Concept} LIMIT 100
DeferInferenceRulesInit = 0
EOF
}

running_pid() { jsvc_running_pid "$PID_FILE" "$INI"; }

isql() { "$ISQL" "127.0.0.1:$SQL_PORT" dba "${VIRTUOSO_DBA_PASSWORD:-dba}" "$@"; }

# The accounts and graph permissions (see the header). Idempotent: run on every start.
set_up_accounts() {
  local role="SPARQL_UPDATE"
  [ "${VIRTUOSO_READ_ONLY:-}" = "true" ] && role="SPARQL_SELECT"
  local sql="$RUN_DIR/setup.sql"
  cat >"$sql" <<EOF
-- Errors of a second run (the user exists) are expected and ignored.
DB.DBA.USER_CREATE ('rcs', '$PASSWORD');
DB.DBA.USER_CREATE ('rcs_reader', '$PASSWORD');
DB.DBA.USER_SET_OPTION ('rcs', 'DISABLED', 0);
DB.DBA.USER_SET_OPTION ('rcs_reader', 'DISABLED', 0);
DB.DBA.USER_SET_OPTION ('rcs', 'PASSWORD_MODE', 0);
REVOKE SPARQL_UPDATE FROM "rcs";
REVOKE SPARQL_SELECT FROM "rcs";
GRANT $role TO "rcs";
GRANT SPARQL_SELECT TO "rcs_reader";
-- The metadata graph and Virtuoso's system graphs are private: only accounts with private
-- permissions read them (rcs), the user-query account (rcs_reader) and nobody do not.
DB.DBA.RDF_GRAPH_GROUP_CREATE ('http://www.openlinksw.com/schemas/virtrdf#PrivateGraphs', 1);
DB.DBA.RDF_GRAPH_GROUP_INS ('http://www.openlinksw.com/schemas/virtrdf#PrivateGraphs', '$METADATA_GRAPH');
DB.DBA.RDF_GRAPH_GROUP_INS ('http://www.openlinksw.com/schemas/virtrdf#PrivateGraphs', 'http://www.openlinksw.com/schemas/virtrdf#');
DB.DBA.RDF_GRAPH_GROUP_INS ('http://www.openlinksw.com/schemas/virtrdf#PrivateGraphs', 'http://www.w3.org/2002/07/owl#');
DB.DBA.RDF_GRAPH_GROUP_INS ('http://www.openlinksw.com/schemas/virtrdf#PrivateGraphs', 'http://www.w3.org/ns/ldp#');
DB.DBA.RDF_GRAPH_GROUP_INS ('http://www.openlinksw.com/schemas/virtrdf#PrivateGraphs', 'http://localuriqaserver/sparql');
DB.DBA.RDF_DEFAULT_USER_PERMS_SET ('nobody', 0, 0);
DB.DBA.RDF_DEFAULT_USER_PERMS_SET ('nobody', 0, 1);
DB.DBA.RDF_DEFAULT_USER_PERMS_SET ('rcs_reader', 1, 0);
DB.DBA.RDF_DEFAULT_USER_PERMS_SET ('rcs_reader', 0, 1);
DB.DBA.RDF_DEFAULT_USER_PERMS_SET ('rcs', 15, 0);
DB.DBA.RDF_DEFAULT_USER_PERMS_SET ('rcs', 15, 1);
checkpoint;
EOF
  isql <"$sql" >"$RUN_DIR/setup.log" 2>&1 || true
}

start() {
  local pid
  if pid="$(running_pid)"; then
    jsvc_log "already running (pid $pid) on $BASE_URL/sparql"
    return 0
  fi
  jsvc_require_commands "$BINARY" "$ISQL" setsid nohup
  if [ "$(jsvc_http_status "$BASE_URL/")" != "000" ]; then
    jsvc_die "port $HTTP_PORT is already in use by another program; set VIRTUOSO_HTTP_PORT"
  fi
  [ "${VIRTUOSO_FRESH:-}" = "true" ] && rm -rf "$RUN_DIR/db"
  mkdir -p "$RUN_DIR/db"
  write_ini
  : >"$LOG_FILE"
  jsvc_log "starting Virtuoso on $BASE_URL/sparql (log: $RUN_DIR/db/virtuoso.log)"
  (
    cd "$RUN_DIR"
    exec setsid nohup "$BINARY" +foreground +configfile "$INI" </dev/null >>"$LOG_FILE" 2>&1
  ) &
  pid=$!
  printf '%s\n' "$pid" >"$PID_FILE"

  local started
  started="$(date +%s)"
  if ! jsvc_wait_http "$BASE_URL/sparql?query=ASK%7B%7D" "$pid" "$RUN_DIR/db/virtuoso.log" "$START_TIMEOUT_SECONDS"; then
    jsvc_stop_pid "$pid" 5
    rm -f "$PID_FILE"
    jsvc_die "Virtuoso did not start"
  fi
  set_up_accounts
  jsvc_log "ready after $(($(date +%s) - started))s (pid $pid)"
}

stop() {
  local pid
  if ! pid="$(running_pid)"; then
    jsvc_log "not running on port $HTTP_PORT"
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
  if ! pid="$(running_pid)"; then
    echo "Virtuoso is not running on port $HTTP_PORT"
    return 3
  fi
  echo "Virtuoso is running (pid $pid) on $BASE_URL/sparql; it answered HTTP" \
    "$(jsvc_http_status "$BASE_URL/sparql?query=ASK%7B%7D")"
}

print_env() {
  echo "export SERVICE_VIRTUOSO_QUERY_URL=$BASE_URL/sparql-auth"
  echo "export SERVICE_VIRTUOSO_UPDATE_URL=$BASE_URL/sparql-auth"
  echo "export SERVICE_VIRTUOSO_GSP_URL=$BASE_URL/sparql-graph-crud-auth"
  echo "export SERVICE_VIRTUOSO_USER=rcs"
  echo "export SERVICE_VIRTUOSO_PASSWORD=$PASSWORD"
  echo "export SERVICE_VIRTUOSO_READER=rcs_reader"
  echo "export SERVICE_VIRTUOSO_SQL=127.0.0.1:$SQL_PORT"
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  status) status ;;
  env) print_env ;;
  *)
    echo "usage: $0 {start|stop|status|env}" >&2
    exit 2
    ;;
esac
