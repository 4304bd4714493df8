# Shared helpers for scripts that fetch a Java server from Maven Central and run it in the
# background on loopback for tests and CI. Source it; it defines functions only.
#
# The caller sets SERVICE_NAME (used in messages) before calling any helper.

# Prints a message prefixed with the service name, on stderr.
jsvc_log() { printf '%s: %s\n' "${SERVICE_NAME:-service}" "$*" >&2; }

# Prints a message and exits with status 1.
jsvc_die() {
  jsvc_log "$*"
  exit 1
}

# Fails unless every named command is on PATH.
jsvc_require_commands() {
  local command_name
  for command_name in "$@"; do
    command -v "$command_name" >/dev/null 2>&1 || jsvc_die "'$command_name' is required but not on PATH"
  done
}

# Fails unless `java` is at least the given major version.
jsvc_require_java() {
  local wanted="$1" version major
  jsvc_require_commands java
  # `java -version` prints e.g. 'openjdk version "17.0.15" 2025-04-15' (or "1.8.0_392").
  version="$(java -version 2>&1 | sed -n 's/.*version "\([^"]*\)".*/\1/p' | head -n 1)"
  major="${version%%.*}"
  [ "$major" = "1" ] && major="$(printf '%s' "$version" | cut -d. -f2)"
  if ! [ "$major" -ge "$wanted" ] 2>/dev/null; then
    jsvc_die "Java $wanted or newer is required, found '${version:-unknown}' ($(command -v java))"
  fi
}

# Downloads one artifact (groupId:artifactId:version[:packaging[:classifier]]) from Maven
# Central into `target` (a file path) unless it is already there. The download goes to a
# temporary directory first so that an interrupted fetch never leaves a truncated file
# where the next start would trust it.
jsvc_maven_fetch() {
  local artifact="$1" target="$2" staging
  if [ -s "$target" ]; then
    jsvc_log "using cached $(basename "$target")"
    return 0
  fi
  jsvc_require_commands mvn
  mkdir -p "$(dirname "$target")"
  staging="$(mktemp -d "$(dirname "$target")/.fetch.XXXXXX")"
  jsvc_log "fetching $artifact from Maven Central"
  # The plugin version is pinned so that the fetch does not depend on what the local Maven
  # repository happens to hold; -C fails on checksum mismatches instead of warning.
  # Maven's own output is kept for the failure case only (it is noisy even with -q).
  if ! mvn -B -q -C -Dstyle.color=never \
    org.apache.maven.plugins:maven-dependency-plugin:3.8.1:copy \
    -Dartifact="$artifact" -DoutputDirectory="$staging" -Dmdep.useBaseVersion=true \
    >"$staging/mvn.log" 2>&1; then
    sed 's/\x1b\[[0-9;]*m//g' "$staging/mvn.log" | tail -n 30 >&2
    rm -rf "$staging"
    jsvc_die "could not fetch $artifact (is Maven Central reachable?)"
  fi
  rm -f "$staging/mvn.log"
  local fetched
  fetched="$(find "$staging" -maxdepth 1 -type f | head -n 1)"
  [ -n "$fetched" ] || {
    rm -rf "$staging"
    jsvc_die "Maven reported success but produced no file for $artifact"
  }
  mv "$fetched" "$target"
  rm -rf "$staging"
  jsvc_log "saved $target ($(du -h "$target" | cut -f1))"
}

# Prints the pid recorded in `pid_file` if that process is alive and its command line
# contains `marker` (a stale pid reused by another program does not count). Returns 1 if not.
jsvc_running_pid() {
  local pid_file="$1" marker="$2" pid
  [ -s "$pid_file" ] || return 1
  pid="$(tr -dc '0-9' <"$pid_file")"
  [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null || return 1
  tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -qF -- "$marker" || return 1
  printf '%s\n' "$pid"
}

# Prints the HTTP status of a GET on `url` ("000" when nothing answers). Uses curl when it
# is installed, otherwise bash's /dev/tcp (plain http://host:port/path URLs only), so that a
# fresh machine with just Java and Maven can run the scripts.
jsvc_http_status() {
  local url="$1"
  if command -v curl >/dev/null 2>&1; then
    curl -s -o /dev/null -w '%{http_code}' --max-time 5 "$url" 2>/dev/null || true
    return 0
  fi
  local pattern='^http://([^/:]+):([0-9]+)(/.*)?$'
  [[ "$url" =~ $pattern ]] || jsvc_die "cannot probe $url without curl"
  local host="${BASH_REMATCH[1]}" port="${BASH_REMATCH[2]}" path="${BASH_REMATCH[3]:-/}" status
  status="$(timeout 5 bash -c '
    exec 3<>"/dev/tcp/$1/$2" || exit 1
    printf "GET %s HTTP/1.0\r\nHost: %s\r\nConnection: close\r\n\r\n" "$3" "$1" >&3
    IFS=" " read -r _ code _ <&3 && printf "%s" "$code"
  ' _ "$host" "$port" "$path" 2>/dev/null)" || true
  [[ "$status" =~ ^[0-9]{3}$ ]] && printf '%s' "$status" || printf '000'
}

# Waits until `url` answers with a status below 500, the process `pid` dies, or
# `timeout_seconds` pass. On failure prints the tail of `log_file` and returns 1.
jsvc_wait_http() {
  local url="$1" pid="$2" log_file="$3" timeout_seconds="$4" started status
  started="$(date +%s)"
  while :; do
    status="$(jsvc_http_status "$url")"
    if [ "$status" != "000" ] && [ "$status" -lt 500 ]; then
      return 0
    fi
    if ! kill -0 "$pid" 2>/dev/null; then
      jsvc_log "the process exited before answering on $url; last lines of $log_file:"
      tail -n 40 "$log_file" >&2 || true
      return 1
    fi
    if [ $(($(date +%s) - started)) -ge "$timeout_seconds" ]; then
      jsvc_log "no answer on $url after ${timeout_seconds}s; last lines of $log_file:"
      tail -n 40 "$log_file" >&2 || true
      return 1
    fi
    sleep 0.5
  done
}

# Sends SIGTERM to `pid`, waits up to `timeout_seconds` for it to exit, then SIGKILLs it.
jsvc_stop_pid() {
  local pid="$1" timeout_seconds="$2" waited=0
  kill -TERM "$pid" 2>/dev/null || return 0
  while kill -0 "$pid" 2>/dev/null; do
    if [ "$waited" -ge $((timeout_seconds * 10)) ]; then
      jsvc_log "pid $pid did not stop within ${timeout_seconds}s; sending SIGKILL"
      kill -KILL "$pid" 2>/dev/null || true
      sleep 0.5
      break
    fi
    sleep 0.1
    waited=$((waited + 1))
  done
}
