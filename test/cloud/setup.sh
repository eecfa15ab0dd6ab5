#!/usr/bin/env bash
# A small "drop-in cloud" on 127.0.0.1 for the tempest and Horizon harnesses (see README.md):
# the real Keystone (test/keystone/setup.sh), the real CloudKitty 17 API in Keystone mode
# (Debian's cloudkitty-api under uwsgi) and a real Tariff process in Keystone mode forwarding
# the routes it does not serve to that CloudKitty. Keystone's catalog has a `rating` service with
# one public endpoint per region: CLOUD_TARIFF_REGION -> Tariff, CLOUD_CLOUDKITTY_REGION ->
# CloudKitty 17, so a client picks its target by region.
# Idempotent: run it again with the same CLOUD_DIR and it keeps what runs with the same settings.
# Prints the path of $CLOUD_DIR/env.sh on stdout (last line); progress goes to stderr.
set -euo pipefail

HERE="$(cd "$(dirname "$0")" && pwd -P)"
ROOT="$(cd "$HERE/../.." && pwd -P)"
log() { echo "[cloud] $*" >&2; }
die() { echo "[cloud] ERROR: $*" >&2; exit 1; }
PY=/usr/bin/python3

# ---------------------------------------------------------------------------------------------
# Knobs
# ---------------------------------------------------------------------------------------------
CLOUD_TARIFF_REGION="${CLOUD_TARIFF_REGION:-RegionOne}"
CLOUD_CLOUDKITTY_REGION="${CLOUD_CLOUDKITTY_REGION:-CloudKitty17}"
CLOUD_CLOUDKITTY_USER=cloudkitty
CLOUD_CLOUDKITTY_PASSWORD="${CLOUD_CLOUDKITTY_PASSWORD:-cloudkitty-secret}"
CLOUD_CLOUDKITTY_PROCESSES="${CLOUD_CLOUDKITTY_PROCESSES:-2}"
CLOUD_CLOUDKITTY_THREADS="${CLOUD_CLOUDKITTY_THREADS:-8}"
CLOUD_START_TIMEOUT="${CLOUD_START_TIMEOUT:-90}"
# CloudKitty's storage: sqlalchemy (v1, SQLite: /v1/report and /v1/storage, no /v2 API at all) or
# influxdb (v2, a private InfluxDB 1.x: /v2/dataframes, which Tariff's simulation reads).
CLOUD_CLOUDKITTY_STORAGE="${CLOUD_CLOUDKITTY_STORAGE:-sqlalchemy}"
case "$CLOUD_CLOUDKITTY_STORAGE" in sqlalchemy|influxdb) ;; *) die "CLOUD_CLOUDKITTY_STORAGE must be sqlalchemy or influxdb, not $CLOUD_CLOUDKITTY_STORAGE" ;; esac
CLOUD_NODE="${CLOUD_NODE:-$(command -v node)}"
[ "$CLOUD_TARIFF_REGION" != "$CLOUD_CLOUDKITTY_REGION" ] || die "CLOUD_TARIFF_REGION and CLOUD_CLOUDKITTY_REGION must differ"
for p in cloudkitty-api python3-cloudkitty uwsgi-core uwsgi-plugin-python3; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || die "Debian package $p is missing (apt-get install -y $p)"
done
if [ "$CLOUD_CLOUDKITTY_STORAGE" = influxdb ]; then
  dpkg-query -W -f='${Status}' influxdb 2>/dev/null | grep -q 'install ok installed' || die "Debian package influxdb is missing (apt-get install -y influxdb)"
fi
[ -f "$ROOT/dist/cli.js" ] || die "$ROOT/dist is not built (npm run build)"

if [ -z "${CLOUD_DIR:-}" ]; then CLOUD_DIR="$(mktemp -d "${TMPDIR:-/tmp}/tariff-cloud.XXXXXX")"; fi
mkdir -p "$CLOUD_DIR/cloudkitty/log" "$CLOUD_DIR/cloudkitty/lock" "$CLOUD_DIR/tariff"
CLOUD_DIR="$(cd "$CLOUD_DIR" && pwd -P)"
CK_DIR="$CLOUD_DIR/cloudkitty"
TARIFF_DIR="$CLOUD_DIR/tariff"
cloudkitty_started=""
tariff_started=""

# ---------------------------------------------------------------------------------------------
# Ports: free ones on first run, the same ones again on a re-run with this CLOUD_DIR
# ---------------------------------------------------------------------------------------------
free_port() { $PY -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
port_busy() { [ -n "$(ss -Hltn "sport = :$1" 2>/dev/null)" ]; }
stored_port() { [ -f "$CLOUD_DIR/ports.env" ] && sed -n "s/^$1=\([0-9]*\)$/\1/p" "$CLOUD_DIR/ports.env" || true; }
# The caller's port, else the one this dir used, else a free one.
CLOUD_KEYSTONE_PORT="${CLOUD_KEYSTONE_PORT:-$(stored_port CLOUD_KEYSTONE_PORT)}"
CLOUD_KEYSTONE_PORT="${CLOUD_KEYSTONE_PORT:-$(free_port)}"
CLOUD_CLOUDKITTY_PORT="${CLOUD_CLOUDKITTY_PORT:-$(stored_port CLOUD_CLOUDKITTY_PORT)}"
CLOUD_CLOUDKITTY_PORT="${CLOUD_CLOUDKITTY_PORT:-$(free_port)}"
CLOUD_TARIFF_PORT="${CLOUD_TARIFF_PORT:-$(stored_port CLOUD_TARIFF_PORT)}"
CLOUD_TARIFF_PORT="${CLOUD_TARIFF_PORT:-$(free_port)}"
# InfluxDB's HTTP API and its RPC (backup) port, only with CLOUD_CLOUDKITTY_STORAGE=influxdb.
CLOUD_INFLUXDB_PORT="${CLOUD_INFLUXDB_PORT:-$(stored_port CLOUD_INFLUXDB_PORT)}"
CLOUD_INFLUXDB_PORT="${CLOUD_INFLUXDB_PORT:-$(free_port)}"
CLOUD_INFLUXDB_RPC_PORT="${CLOUD_INFLUXDB_RPC_PORT:-$(stored_port CLOUD_INFLUXDB_RPC_PORT)}"
CLOUD_INFLUXDB_RPC_PORT="${CLOUD_INFLUXDB_RPC_PORT:-$(free_port)}"
printf 'CLOUD_KEYSTONE_PORT=%s\nCLOUD_CLOUDKITTY_PORT=%s\nCLOUD_TARIFF_PORT=%s\nCLOUD_INFLUXDB_PORT=%s\nCLOUD_INFLUXDB_RPC_PORT=%s\n' \
  "$CLOUD_KEYSTONE_PORT" "$CLOUD_CLOUDKITTY_PORT" "$CLOUD_TARIFF_PORT" "$CLOUD_INFLUXDB_PORT" "$CLOUD_INFLUXDB_RPC_PORT" >"$CLOUD_DIR/ports.env"
CLOUD_CLOUDKITTY_URL="http://127.0.0.1:$CLOUD_CLOUDKITTY_PORT"
CLOUD_TARIFF_URL="http://127.0.0.1:$CLOUD_TARIFF_PORT"
CLOUD_INFLUXDB_URL=""
[ "$CLOUD_CLOUDKITTY_STORAGE" = influxdb ] && CLOUD_INFLUXDB_URL="http://127.0.0.1:$CLOUD_INFLUXDB_PORT"

# A pid from a pid file, if that process is alive and runs in the given dir.
pid_in() {  # pid_in PIDFILE DIR
  local pid
  [ -s "$1" ] || return 1
  pid="$(tr -dc 0-9 <"$1")"
  [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null && [ "$(readlink "/proc/$pid/cwd" 2>/dev/null)" = "$2" ] && echo "$pid"
}
stop_pid() {  # stop_pid PID: SIGTERM, 15 s, SIGKILL (the process and its children)
  local pid="$1" children
  children="$(pgrep -P "$pid" || true)"
  kill -TERM "$pid" 2>/dev/null || true
  for _ in $(seq 1 150); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  for p in $pid $children; do kill -0 "$p" 2>/dev/null && kill -KILL "$p" 2>/dev/null; done
  return 0
}
wait_http() {  # wait_http URL PIDFILE DIR NAME LOG
  # uwsgi --daemonize returns before the daemon writes its pid file: no live process behind the
  # pid file counts as an exit only after 10 s (the stop.sh that follows a failed start would
  # otherwise kill a server still loading its app, as happened under load).
  local deadline=$((SECONDS + CLOUD_START_TIMEOUT)) started=$SECONDS
  until curl -s -o /dev/null --max-time 3 "$1"; do
    if [ "$((SECONDS - started))" -ge 10 ] && ! pid_in "$2" "$3" >/dev/null; then
      tail -n 40 "$5" >&2 2>/dev/null || true
      die "$4 exited before answering GET $1 (log: $5)"
    fi
    if [ "$SECONDS" -ge "$deadline" ]; then
      tail -n 40 "$5" >&2 2>/dev/null || true
      die "$4 did not answer GET $1 within ${CLOUD_START_TIMEOUT} s (log: $5)"
    fi
    sleep 0.3
  done
}

# ---------------------------------------------------------------------------------------------
# 1. Keystone (test/keystone/setup.sh) in the background, while CloudKitty and Tariff start: they
#    call Keystone only when a request comes. Its rating endpoint in CLOUD_TARIFF_REGION -> Tariff.
# ---------------------------------------------------------------------------------------------
t_keystone=$SECONDS
rm -f "$CLOUD_DIR/keystone-env-path"
KEYSTONE_DIR="$CLOUD_DIR/keystone" KEYSTONE_PORT="$CLOUD_KEYSTONE_PORT" \
  KEYSTONE_REGION="$CLOUD_TARIFF_REGION" RATING_ENDPOINT_URL="$CLOUD_TARIFF_URL" \
  "$ROOT/test/keystone/setup.sh" >"$CLOUD_DIR/keystone-env-path" &
keystone_job=$!
# What Keystone's env.sh will say (test/keystone/setup.sh's fixed names and defaults), checked below.
KEYSTONE_BASE_URL="http://127.0.0.1:$CLOUD_KEYSTONE_PORT"
KEYSTONE_URL="$KEYSTONE_BASE_URL/v3"
KEYSTONE_SERVICE_PROJECT=service
KEYSTONE_TARIFF_USER=tariff
KEYSTONE_TARIFF_PASSWORD="${KEYSTONE_TARIFF_PASSWORD:-tariff-secret}"
expected_keystone="$KEYSTONE_URL $KEYSTONE_SERVICE_PROJECT $KEYSTONE_TARIFF_USER $KEYSTONE_TARIFF_PASSWORD"
# A failure below stops the background Keystone set-up too (what it started stays for stop.sh).
trap 'kill "$keystone_job" 2>/dev/null || true' EXIT

# ---------------------------------------------------------------------------------------------
# 2. CloudKitty 17 API, Keystone mode, SQLite, uwsgi; with CLOUD_CLOUDKITTY_STORAGE=influxdb its v2
#    storage on a private InfluxDB (Debian's influxdb 1.x, CloudKitty's default v2 storage)
# ---------------------------------------------------------------------------------------------
t0=$SECONDS
INFLUX_DIR="$CLOUD_DIR/influxdb"
INFLUX_PID_FILE="$INFLUX_DIR/influxd.pid"
if [ "$CLOUD_CLOUDKITTY_STORAGE" = influxdb ]; then
  mkdir -p "$INFLUX_DIR"
  cat >"$INFLUX_DIR/influxdb.conf.new" <<EOF
# Written by test/cloud/setup.sh
reporting-disabled = true
bind-address = "127.0.0.1:$CLOUD_INFLUXDB_RPC_PORT"
[meta]
  dir = "$INFLUX_DIR/meta"
[data]
  dir = "$INFLUX_DIR/data"
  wal-dir = "$INFLUX_DIR/wal"
  query-log-enabled = false
[http]
  bind-address = "127.0.0.1:$CLOUD_INFLUXDB_PORT"
  log-enabled = false
[monitor]
  store-enabled = false
EOF
  influx_changed=0
  if [ -f "$INFLUX_DIR/influxdb.conf" ] && cmp -s "$INFLUX_DIR/influxdb.conf" "$INFLUX_DIR/influxdb.conf.new"; then
    rm -f "$INFLUX_DIR/influxdb.conf.new"
  else
    mv "$INFLUX_DIR/influxdb.conf.new" "$INFLUX_DIR/influxdb.conf"; influx_changed=1
  fi
  if pid="$(pid_in "$INFLUX_PID_FILE" "$INFLUX_DIR")"; then
    if [ "$influx_changed" = 0 ] && curl -sf -o /dev/null --max-time 3 "$CLOUD_INFLUXDB_URL/ping"; then
      log "influxdb already running (pid $pid) on $CLOUD_INFLUXDB_URL"
    else
      log "restarting influxdb (pid $pid): its configuration changed or it does not answer"
      stop_pid "$pid"; rm -f "$INFLUX_PID_FILE"
    fi
  fi
  if ! pid_in "$INFLUX_PID_FILE" "$INFLUX_DIR" >/dev/null; then
    port_busy "$CLOUD_INFLUXDB_PORT" && die "port $CLOUD_INFLUXDB_PORT (InfluxDB) is taken by another process"
    (cd "$INFLUX_DIR" && exec setsid /usr/bin/influxd -config "$INFLUX_DIR/influxdb.conf" \
      </dev/null >>"$INFLUX_DIR/influxd.log" 2>&1 & echo $! >"$INFLUX_PID_FILE")
    wait_http "$CLOUD_INFLUXDB_URL/ping" "$INFLUX_PID_FILE" "$INFLUX_DIR" InfluxDB "$INFLUX_DIR/influxd.log"
    log "influxdb (pid $(cat "$INFLUX_PID_FILE")) answers on $CLOUD_INFLUXDB_URL after $((SECONDS - t0)) s"
  fi
  # CloudKitty's storage init only checks the database's retention policy: the database must exist.
  curl -sf -o /dev/null --max-time 10 -XPOST "$CLOUD_INFLUXDB_URL/query" --data-urlencode 'q=CREATE DATABASE cloudkitty' ||
    die "creating InfluxDB's database cloudkitty failed (log: $INFLUX_DIR/influxd.log)"
  CK_STORAGE="backend = influxdb
version = 2

[storage_influxdb]
host = 127.0.0.1
port = $CLOUD_INFLUXDB_PORT
database = cloudkitty"
else
  CK_STORAGE="# v1 sqlalchemy storage: no InfluxDB/Elasticsearch; serves /v1/report and /v1/storage (empty).
backend = sqlalchemy
version = 1"
fi
CK_CONF="$CK_DIR/cloudkitty.conf"
CK_PID_FILE="$CK_DIR/uwsgi.pid"
CK_LOG="$CK_DIR/log/cloudkitty.log"
[ -f "$CK_DIR/policy.yaml" ] || echo '{}' >"$CK_DIR/policy.yaml"
sed -e "s#^disable_by_file_path = .*#disable_by_file_path = $CK_DIR/healthcheck_disable#" \
  /etc/cloudkitty/api_paste.ini >"$CK_DIR/api_paste.ini"
cat >"$CK_CONF.new" <<EOF
# Written by test/cloud/setup.sh
[DEFAULT]
auth_strategy = keystone
api_paste_config = $CK_DIR/api_paste.ini
# No RabbitMQ: the in-process fake driver swallows the API's RPC casts (module enable/reload).
transport_url = fake:/
host = cloudkitty-cloud
debug = false
log_file = $CK_LOG

[api]
host_ip = 127.0.0.1
port = $CLOUD_CLOUDKITTY_PORT

[database]
connection = sqlite:///$CK_DIR/cloudkitty.sqlite

[storage]
$CK_STORAGE

[oslo_concurrency]
lock_path = $CK_DIR/lock

[oslo_policy]
policy_file = $CK_DIR/policy.yaml

[keystone_authtoken]
auth_type = password
auth_url = $KEYSTONE_BASE_URL
www_authenticate_uri = $KEYSTONE_BASE_URL
username = $CLOUD_CLOUDKITTY_USER
password = $CLOUD_CLOUDKITTY_PASSWORD
project_name = $KEYSTONE_SERVICE_PROJECT
user_domain_name = Default
project_domain_name = Default
region_name = $CLOUD_CLOUDKITTY_REGION
EOF
# uwsgi: the shipped /etc/cloudkitty/cloudkitty-api-uwsgi.ini's settings, fewer processes.
cat >"$CK_DIR/uwsgi.ini.new" <<EOF
[uwsgi]
buffer-size = 65535
master = true
thunder-lock = true
plugins = python3
lazy-apps = true
paste-logger = true
no-orphans = true
die-on-term = true
enable-threads = true
processes = $CLOUD_CLOUDKITTY_PROCESSES
threads = $CLOUD_CLOUDKITTY_THREADS
listen = 100
add-header = Connection: close
paste = config:$CK_DIR/api_paste.ini
name = cloudkitty-api
chdir = $CK_DIR
wsgi-file = /usr/bin/cloudkitty-api
http-socket = 127.0.0.1:$CLOUD_CLOUDKITTY_PORT
pyargv = --config-file $CK_CONF
pidfile = $CK_PID_FILE
daemonize = $CK_DIR/log/uwsgi.log
procname-prefix-spaced = cloudkitty-cloud[$CLOUD_CLOUDKITTY_PORT]
EOF
ck_changed=0
for f in "$CK_CONF" "$CK_DIR/uwsgi.ini"; do
  if [ -f "$f" ] && cmp -s "$f" "$f.new"; then rm -f "$f.new"; else mv "$f.new" "$f"; ck_changed=1; fi
done
if pid="$(pid_in "$CK_PID_FILE" "$CK_DIR")"; then
  if [ "$ck_changed" = 0 ] && curl -s -o /dev/null --max-time 3 "$CLOUD_CLOUDKITTY_URL/"; then
    log "cloudkitty already running (pid $pid) on $CLOUD_CLOUDKITTY_URL"
  else
    log "restarting cloudkitty (pid $pid): its configuration changed or it does not answer"
    stop_pid "$pid"; rm -f "$CK_PID_FILE"
  fi
fi
if ! pid_in "$CK_PID_FILE" "$CK_DIR" >/dev/null; then
  port_busy "$CLOUD_CLOUDKITTY_PORT" && die "port $CLOUD_CLOUDKITTY_PORT (CloudKitty) is taken by another process"
  cloudkitty-dbsync --config-file "$CK_CONF" upgrade >>"$CK_DIR/log/dbsync.log" 2>&1 ||
    { tail -n 20 "$CK_DIR/log/dbsync.log" >&2; die "cloudkitty-dbsync failed"; }
  cloudkitty-storage-init --config-file "$CK_CONF" >>"$CK_DIR/log/dbsync.log" 2>&1 ||
    { tail -n 20 "$CK_DIR/log/dbsync.log" >&2; die "cloudkitty-storage-init failed"; }
  UWSGI=/usr/bin/uwsgi-core
  [ -x "$UWSGI" ] || UWSGI="$(command -v uwsgi)"
  (cd "$CK_DIR" && "$UWSGI" --ini "$CK_DIR/uwsgi.ini" >&2) || die "uwsgi failed to start CloudKitty (log: $CK_DIR/log/uwsgi.log)"
  wait_http "$CLOUD_CLOUDKITTY_URL/" "$CK_PID_FILE" "$CK_DIR" CloudKitty "$CK_DIR/log/uwsgi.log"
  cloudkitty_started=1
  log "cloudkitty (pid $(pid_in "$CK_PID_FILE" "$CK_DIR")) answers on $CLOUD_CLOUDKITTY_URL after $((SECONDS - t0)) s"
fi

# ---------------------------------------------------------------------------------------------
# 3. Tariff, Keystone mode, SQLite, forwarding to CloudKitty
# ---------------------------------------------------------------------------------------------
t0=$SECONDS
TARIFF_PID_FILE="$TARIFF_DIR/tariff.pid"
TARIFF_LOG="$TARIFF_DIR/tariff.log"
# The caller's TARIFF_* variables (e.g. TARIFF_LOG_LEVEL) pass through, except the ones set here.
{
  env | grep -E '^TARIFF_' | grep -Ev '^TARIFF_(HOST|PORT|DATABASE_URL|AUTH|KEYSTONE_(AUTH_URL|USERNAME|PASSWORD|PROJECT_NAME)|CLOUDKITTY_API_URL|TEST_[A-Z_]*|TEMPEST_[A-Z_]*|HORIZON_[A-Z_]*)=' | sort || true
  cat <<EOF
TARIFF_HOST=127.0.0.1
TARIFF_PORT=$CLOUD_TARIFF_PORT
TARIFF_DATABASE_URL=sqlite:$TARIFF_DIR/tariff.db
TARIFF_AUTH=keystone
TARIFF_KEYSTONE_AUTH_URL=$KEYSTONE_URL
TARIFF_KEYSTONE_USERNAME=$KEYSTONE_TARIFF_USER
TARIFF_KEYSTONE_PASSWORD=$KEYSTONE_TARIFF_PASSWORD
TARIFF_KEYSTONE_PROJECT_NAME=$KEYSTONE_SERVICE_PROJECT
TARIFF_CLOUDKITTY_API_URL=$CLOUD_CLOUDKITTY_URL
EOF
} >"$TARIFF_DIR/tariff.env.new"
grep -q '^TARIFF_SANDBOX_WORKERS=' "$TARIFF_DIR/tariff.env.new" || echo 'TARIFF_SANDBOX_WORKERS=1' >>"$TARIFF_DIR/tariff.env.new"
grep -q '^TARIFF_SANDBOX_SPARE_WORKERS=' "$TARIFF_DIR/tariff.env.new" || echo 'TARIFF_SANDBOX_SPARE_WORKERS=0' >>"$TARIFF_DIR/tariff.env.new"
# A loaded CI machine (load average 10+ seen) can take more than the default 5 s to validate a
# token; CloudKitty's keystonemiddleware waits longer than that too.
grep -q '^TARIFF_KEYSTONE_TIMEOUT=' "$TARIFF_DIR/tariff.env.new" || echo 'TARIFF_KEYSTONE_TIMEOUT=30' >>"$TARIFF_DIR/tariff.env.new"
# What dist/ holds (its content: a rebuild of the same sources keeps the running process).
dist_hash="$(cd "$ROOT/dist" && find . -type f ! -name '*.map' -print0 | sort -z | xargs -0 sha256sum | sha256sum | cut -c1-64)"
restart_reason=""
if [ -f "$TARIFF_DIR/tariff.env" ] && cmp -s "$TARIFF_DIR/tariff.env" "$TARIFF_DIR/tariff.env.new"; then
  rm -f "$TARIFF_DIR/tariff.env.new"
else
  mv "$TARIFF_DIR/tariff.env.new" "$TARIFF_DIR/tariff.env"; restart_reason="its settings changed"
fi
[ -n "$restart_reason" ] || [ "$(cat "$TARIFF_DIR/tariff.dist" 2>/dev/null)" = "$dist_hash" ] || restart_reason="dist/ changed"
if pid="$(pid_in "$TARIFF_PID_FILE" "$TARIFF_DIR")"; then
  if [ -z "$restart_reason" ] && ! curl -sf -o /dev/null --max-time 3 "$CLOUD_TARIFF_URL/healthcheck"; then
    restart_reason="it does not answer GET /healthcheck"
  fi
  if [ -z "$restart_reason" ]; then
    log "tariff already running (pid $pid) on $CLOUD_TARIFF_URL"
  else
    log "restarting tariff (pid $pid): $restart_reason"
    stop_pid "$pid"; rm -f "$TARIFF_PID_FILE"
  fi
fi
if ! pid_in "$TARIFF_PID_FILE" "$TARIFF_DIR" >/dev/null; then
  port_busy "$CLOUD_TARIFF_PORT" && die "port $CLOUD_TARIFF_PORT (Tariff) is taken by another process"
  # A session of its own (setsid), detached from this script; cwd = its state dir (pid_in checks it).
  echo "$dist_hash" >"$TARIFF_DIR/tariff.dist"
  mapfile -t tariff_env <"$TARIFF_DIR/tariff.env"
  (cd "$TARIFF_DIR" && exec env -i PATH="$PATH" HOME="${HOME:-/root}" "${tariff_env[@]}" \
    setsid "$CLOUD_NODE" --max-semi-space-size=64 --expose-gc "$ROOT/bin/tariff.js" serve \
    </dev/null >>"$TARIFF_LOG" 2>&1 & echo $! >"$TARIFF_PID_FILE")
  wait_http "$CLOUD_TARIFF_URL/healthcheck" "$TARIFF_PID_FILE" "$TARIFF_DIR" Tariff "$TARIFF_LOG"
  tariff_started=1
  log "tariff (pid $(cat "$TARIFF_PID_FILE")) answers on $CLOUD_TARIFF_URL after $((SECONDS - t0)) s"
fi

# ---------------------------------------------------------------------------------------------
# 4. Keystone done: the second region, CloudKitty's service user, the `rating` role; the rating
#    modules of a server started now enabled (hashmap, pyscripts: as the CloudKitty anchor does)
# ---------------------------------------------------------------------------------------------
wait "$keystone_job" || die "Keystone did not start (test/keystone/setup.sh failed, see above)"
trap - EXIT
keystone_env="$(tail -n 1 "$CLOUD_DIR/keystone-env-path")"
[ -f "$keystone_env" ] || die "test/keystone/setup.sh printed no env.sh path"
# shellcheck disable=SC1090
. "$keystone_env"
[ "$KEYSTONE_URL $KEYSTONE_SERVICE_PROJECT $KEYSTONE_TARIFF_USER $KEYSTONE_TARIFF_PASSWORD" = "$expected_keystone" ] ||
  die "Keystone's env.sh ($KEYSTONE_URL, $KEYSTONE_SERVICE_PROJECT, $KEYSTONE_TARIFF_USER) is not what CloudKitty and Tariff were given ($expected_keystone)"
log "keystone ready after $((SECONDS - t_keystone)) s on $KEYSTONE_URL"
t0=$SECONDS
export CLOUD_TARIFF_REGION CLOUD_CLOUDKITTY_REGION CLOUD_CLOUDKITTY_USER CLOUD_CLOUDKITTY_PASSWORD \
  CLOUD_CLOUDKITTY_URL CLOUD_TARIFF_URL
$PY "$HERE/provision.py" || die "provisioning the second region and the cloudkitty user failed"
if [ -n "$cloudkitty_started" ]; then
  $PY "$HERE/provision.py" enable-modules "$CLOUD_CLOUDKITTY_URL" || die "enabling CloudKitty's rating modules failed (log: $CK_LOG)"
fi
if [ -n "$tariff_started" ]; then
  $PY "$HERE/provision.py" enable-modules "$CLOUD_TARIFF_URL" || die "enabling Tariff's rating modules failed (log: $TARIFF_LOG)"
fi
log "regions, identities and modules ready in $((SECONDS - t0)) s"

# ---------------------------------------------------------------------------------------------
# 5. CLOUD_OWNER_PID: a watchdog runs stop.sh once that process is gone (a test runner killed
#    before its teardown leaves no servers behind). One per dir; a new owner replaces it.
# ---------------------------------------------------------------------------------------------
if [ -n "${CLOUD_OWNER_PID:-}" ]; then
  kill -0 "$CLOUD_OWNER_PID" 2>/dev/null || die "CLOUD_OWNER_PID $CLOUD_OWNER_PID is not a running process"
  if watchdog="$(pid_in "$CLOUD_DIR/watchdog.pid" "$CLOUD_DIR")" &&
     [ "$(cat "$CLOUD_DIR/watchdog.owner" 2>/dev/null)" = "$CLOUD_OWNER_PID" ]; then
    :  # already watching this owner
  else
    [ -n "${watchdog:-}" ] && kill "$watchdog" 2>/dev/null
    echo "$CLOUD_OWNER_PID" >"$CLOUD_DIR/watchdog.owner"
    (cd "$CLOUD_DIR" && exec setsid bash -c 'while kill -0 "$1" 2>/dev/null; do sleep 2; done; exec "$2" "$3"' \
      cloud-watchdog "$CLOUD_OWNER_PID" "$HERE/stop.sh" "$CLOUD_DIR" </dev/null >>"$CLOUD_DIR/watchdog.log" 2>&1 &
      echo $! >"$CLOUD_DIR/watchdog.pid")
  fi
fi

# ---------------------------------------------------------------------------------------------
# 6. env.sh: Keystone's, and the cloud's
# ---------------------------------------------------------------------------------------------
{
  echo "# Written by test/cloud/setup.sh: source it."
  cat "$keystone_env" | grep '^export '
  for v in CLOUD_DIR CLOUD_TARIFF_REGION CLOUD_CLOUDKITTY_REGION CLOUD_TARIFF_URL CLOUD_CLOUDKITTY_URL \
    CLOUD_CLOUDKITTY_USER CLOUD_CLOUDKITTY_PASSWORD CLOUD_KEYSTONE_PORT CLOUD_CLOUDKITTY_PORT CLOUD_TARIFF_PORT \
    CK_CONF CK_PID_FILE CK_LOG TARIFF_PID_FILE TARIFF_LOG CLOUD_CLOUDKITTY_STORAGE CLOUD_INFLUXDB_URL; do
    printf 'export %s=%q\n' "$v" "${!v}"
  done
  printf 'export CLOUD_CLOUDKITTY_UWSGI_LOG=%q\n' "$CK_DIR/log/uwsgi.log"
} >"$CLOUD_DIR/env.sh.tmp"
mv "$CLOUD_DIR/env.sh.tmp" "$CLOUD_DIR/env.sh"
echo "$CLOUD_DIR/env.sh"
