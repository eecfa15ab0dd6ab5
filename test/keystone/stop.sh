#!/usr/bin/env bash
# Stop the Keystone that test/keystone/setup.sh started.
#   stop.sh [--purge] [KEYSTONE_DIR]     (or KEYSTONE_DIR in the environment, e.g. from env.sh)
# --purge also removes the state dir (database, keys, logs, env.sh).
set -euo pipefail

purge=""
dir="${KEYSTONE_DIR:-}"
for arg in "$@"; do
  case "$arg" in
    --purge) purge=1 ;;
    -h|--help) sed -n '2,4p' "$0"; exit 0 ;;
    *) dir="$arg" ;;
  esac
done
[ -n "$dir" ] || { echo "[keystone] usage: stop.sh [--purge] KEYSTONE_DIR" >&2; exit 2; }
[ -d "$dir" ] || { echo "[keystone] $dir: no such directory (nothing to stop)" >&2; exit 0; }
pid_file="$dir/keystone.pid"

if [ -s "$pid_file" ]; then
  pid="$(tr -dc 0-9 <"$pid_file")"
  # Ours only if it runs in the state dir (setup.sh starts uwsgi with --chdir "$KEYSTONE_DIR").
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null &&
     [ "$(readlink "/proc/$pid/cwd" 2>/dev/null)" = "$(cd "$dir" && pwd -P)" ]; then
    workers="$(pgrep -P "$pid" || true)"
    kill -TERM "$pid" 2>/dev/null || true            # uwsgi --die-on-term: master stops its workers
    for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    for w in $pid $workers; do
      kill -0 "$w" 2>/dev/null && { echo "[keystone] pid $w still alive after 10 s: SIGKILL" >&2; kill -KILL "$w" 2>/dev/null || true; }
    done
    for _ in $(seq 1 50); do
      alive=""; for w in $pid $workers; do kill -0 "$w" 2>/dev/null && alive=1; done
      [ -z "$alive" ] && break; sleep 0.1
    done
    echo "[keystone] stopped uwsgi pid $pid" >&2
  else
    echo "[keystone] pid file $pid_file is stale" >&2
  fi
  rm -f "$pid_file"
else
  echo "[keystone] no pid file in $dir (not running)" >&2
fi

if [ -n "$purge" ]; then
  [ -f "$dir/keystone.conf" ] || { echo "[keystone] $dir has no keystone.conf: not removing it" >&2; exit 1; }
  rm -rf "$dir"
  echo "[keystone] removed $dir" >&2
fi
