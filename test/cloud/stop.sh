#!/usr/bin/env bash
# Stop what test/cloud/setup.sh started in CLOUD_DIR: Tariff, CloudKitty's uwsgi, its InfluxDB, Keystone.
#   stop.sh [--purge] [CLOUD_DIR]     (or CLOUD_DIR in the environment, e.g. from env.sh)
# --purge also removes CLOUD_DIR (databases, logs, env.sh). Stopping twice is harmless.
set -uo pipefail

HERE="$(cd "$(dirname "$0")" && pwd -P)"
purge=""
dir="${CLOUD_DIR:-}"
for arg in "$@"; do
  case "$arg" in
    --purge) purge=1 ;;
    -h|--help) sed -n '2,4p' "$0"; exit 0 ;;
    *) dir="$arg" ;;
  esac
done
[ -n "$dir" ] || { echo "[cloud] usage: stop.sh [--purge] CLOUD_DIR" >&2; exit 2; }
[ -d "$dir" ] || { echo "[cloud] $dir: no such directory (nothing to stop)" >&2; exit 0; }
dir="$(cd "$dir" && pwd -P)"

# stop_in NAME PIDFILE DIR: the process of the pid file if it runs in DIR (ours), and its children.
stop_in() {
  local name="$1" pid_file="$2" cwd="$3" pid children
  [ -s "$pid_file" ] || return 0
  pid="$(tr -dc 0-9 <"$pid_file")"
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null && [ "$(readlink "/proc/$pid/cwd" 2>/dev/null)" = "$cwd" ]; then
    children="$(pgrep -P "$pid" || true)"
    kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 1 150); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    for p in $pid $children; do
      kill -0 "$p" 2>/dev/null && { echo "[cloud] $name pid $p still alive after 15 s: SIGKILL" >&2; kill -KILL "$p" 2>/dev/null || true; }
    done
    echo "[cloud] stopped $name (pid $pid)" >&2
  else
    echo "[cloud] $name: pid file $pid_file is stale" >&2
  fi
  rm -f "$pid_file"
}

# The watchdog of CLOUD_OWNER_PID (setup.sh), unless this is the watchdog itself (it execs stop.sh).
if [ -s "$dir/watchdog.pid" ] && [ "$(tr -dc 0-9 <"$dir/watchdog.pid")" != "$$" ]; then
  stop_in watchdog "$dir/watchdog.pid" "$dir"
fi
rm -f "$dir/watchdog.pid" "$dir/watchdog.owner"
stop_in tariff "$dir/tariff/tariff.pid" "$dir/tariff"
stop_in cloudkitty "$dir/cloudkitty/uwsgi.pid" "$dir/cloudkitty"
stop_in influxdb "$dir/influxdb/influxd.pid" "$dir/influxdb"
[ -d "$dir/keystone" ] && "$HERE/../keystone/stop.sh" "$dir/keystone"

if [ -n "$purge" ]; then
  [ -f "$dir/ports.env" ] || { echo "[cloud] $dir has no ports.env: not removing it" >&2; exit 1; }
  rm -rf "$dir"
  echo "[cloud] removed $dir" >&2
fi
exit 0
