#!/usr/bin/env bash
# Start a real Keystone (Debian bookworm, 2:22.0.x) on 127.0.0.1 for the tests, without systemd:
# SQLite database, fernet tokens and keystone.conf in a state dir, keystone-wsgi-public under uwsgi,
# then the identities the tests use (see README.md). Idempotent: run it again with the same
# KEYSTONE_DIR and it reuses the running server (restarting it only when keystone.conf or the
# admin password changed).
# Prints the path of $KEYSTONE_DIR/env.sh on stdout (last line); progress goes to stderr.
set -euo pipefail

log() { echo "[keystone] $*" >&2; }
die() { echo "[keystone] ERROR: $*" >&2; exit 1; }

# ---------------------------------------------------------------------------------------------
# Knobs
# ---------------------------------------------------------------------------------------------
KEYSTONE_HOST=127.0.0.1
KEYSTONE_TOKEN_EXPIRATION="${KEYSTONE_TOKEN_EXPIRATION:-3600}"
KEYSTONE_REGION="${KEYSTONE_REGION:-RegionOne}"
KEYSTONE_START_TIMEOUT="${KEYSTONE_START_TIMEOUT:-60}"
KEYSTONE_THREADS="${KEYSTONE_THREADS:-8}"
# python3-keystone is Keystone itself (keystone-manage, keystone-wsgi-public, all its
# dependencies). The `keystone` binary package only adds the system service around it (init
# script, debconf/dbconfig-common, /etc/keystone); set KEYSTONE_DEB_PACKAGES=keystone to install
# it anyway (its postinst is kept from configuring a database or starting anything, see below).
KEYSTONE_DEB_PACKAGES="${KEYSTONE_DEB_PACKAGES:-python3-keystone}"
KEYSTONE_ADMIN_USER=admin
KEYSTONE_ADMIN_PASSWORD="${KEYSTONE_ADMIN_PASSWORD:-admin-secret}"
KEYSTONE_ADMIN_PROJECT=admin
KEYSTONE_SERVICE_PROJECT=service
KEYSTONE_TARIFF_USER=tariff
KEYSTONE_TARIFF_PASSWORD="${KEYSTONE_TARIFF_PASSWORD:-tariff-secret}"
KEYSTONE_TARIFF_ROLES="${KEYSTONE_TARIFF_ROLES:-service admin}"
KEYSTONE_DEMO_PROJECT=demo
KEYSTONE_MEMBER_USER=demo-member
KEYSTONE_MEMBER_PASSWORD="${KEYSTONE_MEMBER_PASSWORD:-member-secret}"
KEYSTONE_READER_USER=demo-reader
KEYSTONE_READER_PASSWORD="${KEYSTONE_READER_PASSWORD:-reader-secret}"
RATING_ENDPOINT_URL="${RATING_ENDPOINT_URL:-http://127.0.0.1:${TARIFF_PORT:-8889}}"

case "$KEYSTONE_TOKEN_EXPIRATION" in ''|*[!0-9]*) die "KEYSTONE_TOKEN_EXPIRATION must be a number of seconds";; esac

# ---------------------------------------------------------------------------------------------
# 1. Debian packages
# ---------------------------------------------------------------------------------------------
installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'; }

# Wait (bounded) for another apt-get/dpkg to release its locks.
wait_for_apt() {
  local waited=0
  while fuser /var/lib/dpkg/lock-frontend /var/lib/dpkg/lock /var/lib/apt/lists/lock >/dev/null 2>&1; do
    [ "$waited" -ge 900 ] && die "apt/dpkg is still locked by another process after 900 s"
    [ "$waited" -eq 0 ] && log "waiting for another apt-get/dpkg to finish"
    sleep 2; waited=$((waited + 2))
  done
}

install_packages() {
  local need=() p
  for p in $KEYSTONE_DEB_PACKAGES uwsgi-core uwsgi-plugin-python3 psmisc iproute2; do
    installed "$p" || need+=("$p")
  done
  [ "${#need[@]}" -eq 0 ] && return 0
  [ "$(id -u)" -eq 0 ] || die "missing Debian packages (${need[*]}) and not root"
  command -v fuser >/dev/null || log "fuser missing: relying on apt's lock timeout"
  export DEBIAN_FRONTEND=noninteractive DEBCONF_NONINTERACTIVE_SEEN=true
  # The `keystone` package's debconf: no database via dbconfig-common, no admin/endpoint
  # bootstrap (those would try to start and talk to a system service).
  if printf '%s\n' $KEYSTONE_DEB_PACKAGES | grep -qx keystone; then
    printf '%s\n' \
      'keystone keystone/configure_db boolean false' \
      'keystone keystone/create-admin-tenant boolean false' \
      'keystone keystone/register-endpoint boolean false' | debconf-set-selections
  fi
  # Never let a postinst start a service (no systemd here): policy-rc.d that denies everything,
  # only for the time of this install if the machine has none.
  local own_policy=""
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d && chmod 755 /usr/sbin/policy-rc.d
    own_policy=1
  fi
  local apt_opts=(-y -q --no-install-recommends -o DPkg::Lock::Timeout=600
                  -o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold)
  log "installing Debian packages: ${need[*]}"
  local rc=0 t0=$SECONDS
  wait_for_apt
  local known=1
  for p in "${need[@]}"; do apt-cache show --no-all-versions "$p" >/dev/null 2>&1 || known=0; done
  if [ "$known" = 0 ]; then
    apt-get update -qq -o DPkg::Lock::Timeout=600 >&2 || { wait_for_apt; apt-get update -qq >&2; } || rc=$?
  fi
  if [ "$rc" -eq 0 ]; then
    wait_for_apt
    apt-get install "${apt_opts[@]}" "${need[@]}" </dev/null >"${TMPDIR:-/tmp}/keystone-apt.log" 2>&1 || {
      # A stale package list (404 on a superseded .deb): refresh once and retry.
      wait_for_apt; apt-get update -qq >&2 || true; wait_for_apt
      apt-get install "${apt_opts[@]}" "${need[@]}" </dev/null >>"${TMPDIR:-/tmp}/keystone-apt.log" 2>&1
    } || rc=$?
  fi
  [ -n "$own_policy" ] && rm -f /usr/sbin/policy-rc.d
  [ "$rc" -eq 0 ] || { tail -n 30 "${TMPDIR:-/tmp}/keystone-apt.log" >&2; die "apt-get install ${need[*]} failed (log: ${TMPDIR:-/tmp}/keystone-apt.log)"; }
  log "installed in $((SECONDS - t0)) s"
}
install_packages

command -v keystone-manage >/dev/null || die "keystone-manage not found after install"
[ -x /usr/bin/keystone-wsgi-public ] || die "/usr/bin/keystone-wsgi-public not found"
# Debian's interpreter (the one with keystone's modules), whatever python3 is first on PATH.
PY=/usr/bin/python3
UWSGI=/usr/bin/uwsgi-core
[ -x "$UWSGI" ] || UWSGI="$(command -v uwsgi || true)"
[ -n "$UWSGI" ] || die "uwsgi not found"

# ---------------------------------------------------------------------------------------------
# 2. State dir, port, keystone.conf
# ---------------------------------------------------------------------------------------------
if [ -z "${KEYSTONE_DIR:-}" ]; then
  KEYSTONE_DIR="$(mktemp -d "${TMPDIR:-/tmp}/keystone.XXXXXX")"
fi
mkdir -p "$KEYSTONE_DIR"
KEYSTONE_DIR="$(cd "$KEYSTONE_DIR" && pwd -P)"
KEYSTONE_CONF="$KEYSTONE_DIR/keystone.conf"
KEYSTONE_PID_FILE="$KEYSTONE_DIR/keystone.pid"
KEYSTONE_LOG="$KEYSTONE_DIR/keystone.log"
mkdir -p "$KEYSTONE_DIR/fernet-keys" "$KEYSTONE_DIR/credential-keys"
chmod 700 "$KEYSTONE_DIR/fernet-keys" "$KEYSTONE_DIR/credential-keys"

running_pid() {  # pid of our uwsgi master if it is alive (runs in $KEYSTONE_DIR: --chdir)
  local pid
  [ -s "$KEYSTONE_PID_FILE" ] || return 1
  pid="$(tr -dc 0-9 <"$KEYSTONE_PID_FILE")"
  [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null &&
    [ "$(readlink "/proc/$pid/cwd" 2>/dev/null)" = "$KEYSTONE_DIR" ] && echo "$pid"
}
port_busy() { [ -n "$(ss -Hltn "sport = :$1" 2>/dev/null)" ]; }

if [ -z "${KEYSTONE_PORT:-}" ] && [ -s "$KEYSTONE_DIR/port" ]; then
  KEYSTONE_PORT="$(cat "$KEYSTONE_DIR/port")"   # same dir, same port
fi
if running_pid >/dev/null && [ -n "${KEYSTONE_PORT:-}" ] && [ "$KEYSTONE_PORT" = "$(cat "$KEYSTONE_DIR/port" 2>/dev/null)" ]; then
  :  # our own Keystone holds the port
elif [ -n "${KEYSTONE_PORT:-}" ]; then
  port_busy "$KEYSTONE_PORT" && die "port $KEYSTONE_PORT is already in use (ss -ltn); set KEYSTONE_PORT to a free one"
else
  KEYSTONE_PORT=5000
  while port_busy "$KEYSTONE_PORT"; do
    KEYSTONE_PORT=$((KEYSTONE_PORT + 1))
    [ "$KEYSTONE_PORT" -lt 5100 ] || die "no free port in 5000-5099"
  done
fi
echo "$KEYSTONE_PORT" >"$KEYSTONE_DIR/port"
KEYSTONE_BASE_URL="http://$KEYSTONE_HOST:$KEYSTONE_PORT"
KEYSTONE_URL="$KEYSTONE_BASE_URL/v3"

# Empty policy overrides: Keystone's in-code defaults, whatever is in /etc/keystone.
[ -f "$KEYSTONE_DIR/policy.yaml" ] || echo '{}' >"$KEYSTONE_DIR/policy.yaml"
mkdir -p "$KEYSTONE_DIR/policy.d"
cat >"$KEYSTONE_CONF.new" <<EOF
# Written by test/keystone/setup.sh
[DEFAULT]
log_file = $KEYSTONE_LOG
use_stderr = false
debug = false

[database]
connection = sqlite:///$KEYSTONE_DIR/keystone.db
# Threads: keystone leaks the odd connection, which the garbage collector then finalizes in
# another thread (fails with pysqlite's default check_same_thread=true and keeps its lock);
# with WAL (set below) a reader never blocks a writer. A throwaway database: no fsync.
connection_parameters = check_same_thread=false&timeout=20
sqlite_synchronous = false

[identity]
# Test passwords: bcrypt's minimum cost, so a password login costs ~1 ms instead of ~0.3 s.
password_hash_algorithm = bcrypt
password_hash_rounds = 4

[token]
provider = fernet
expiration = $KEYSTONE_TOKEN_EXPIRATION

[fernet_tokens]
key_repository = $KEYSTONE_DIR/fernet-keys/

[fernet_receipts]
key_repository = $KEYSTONE_DIR/fernet-keys/

[credential]
key_repository = $KEYSTONE_DIR/credential-keys/

# Without a cache every token validation recomputes the roles in ~160 queries (~0.7 s); the
# in-process memory cache brings it to ~10 ms. It is per process, so uwsgi runs ONE process
# (threads for concurrency): with several, a token revoked in one would stay valid in another.
[cache]
enabled = true
backend = dogpile.cache.memory

[oslo_policy]
policy_file = $KEYSTONE_DIR/policy.yaml
policy_dirs = $KEYSTONE_DIR/policy.d
EOF
conf_changed=1
if [ -f "$KEYSTONE_CONF" ] && cmp -s "$KEYSTONE_CONF" "$KEYSTONE_CONF.new"; then
  conf_changed=0; rm -f "$KEYSTONE_CONF.new"
else
  mv "$KEYSTONE_CONF.new" "$KEYSTONE_CONF"
fi

kmanage() {
  keystone-manage --config-file "$KEYSTONE_CONF" --log-file "$KEYSTONE_DIR/keystone-manage.log" "$@" >>"$KEYSTONE_DIR/keystone-manage.log" 2>&1 ||
    { tail -n 20 "$KEYSTONE_DIR/keystone-manage.log" >&2; die "keystone-manage $1 failed (log: $KEYSTONE_DIR/keystone-manage.log)"; }
}

api_up() {  # GET /v3 answers with the v3 version document
  $PY - "$KEYSTONE_URL" <<'PY' 2>/dev/null
import json, sys, urllib.request
with urllib.request.urlopen(sys.argv[1], timeout=3) as r:
    sys.exit(0 if json.load(r)["version"]["id"].startswith("v3") else 1)
PY
}

admin_login() {  # the admin password works (project-scoped)
  KS_PASSWORD="$KEYSTONE_ADMIN_PASSWORD" $PY - "$KEYSTONE_URL" "$KEYSTONE_ADMIN_USER" "$KEYSTONE_ADMIN_PROJECT" <<'PY' 2>/dev/null
import json, os, sys, urllib.request
url, user, project = sys.argv[1:]
body = {"auth": {"identity": {"methods": ["password"], "password": {"user": {
    "name": user, "domain": {"id": "default"}, "password": os.environ["KS_PASSWORD"]}}},
    "scope": {"project": {"name": project, "domain": {"id": "default"}}}}}
req = urllib.request.Request(url + "/auth/tokens", data=json.dumps(body).encode(),
                             headers={"Content-Type": "application/json"}, method="POST")
with urllib.request.urlopen(req, timeout=30) as r:
    sys.exit(0 if r.status == 201 else 1)
PY
}

stop_running() {
  local pid="$1" children
  children="$(pgrep -P "$pid" || true)"
  kill -TERM "$pid" 2>/dev/null || true           # --die-on-term: the master stops its worker
  for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  for p in $pid $children; do kill -0 "$p" 2>/dev/null && kill -KILL "$p" 2>/dev/null; done
  rm -f "$KEYSTONE_PID_FILE"
  return 0
}

# Already running from this dir with this very keystone.conf and admin password: keep it
# (re-running keystone-manage under a live server would reset passwords behind its cache).
if pid="$(running_pid)"; then
  if [ "$conf_changed" = 0 ] && api_up && admin_login; then
    log "already running (pid $pid) on $KEYSTONE_URL"
  else
    log "restarting uwsgi (pid $pid): keystone.conf or the admin password changed, or it does not answer"
    stop_running "$pid"
  fi
fi

if ! running_pid >/dev/null; then
  # ---------------------------------------------------------------------------------------------
  # 3. Keys, database, bootstrap (all idempotent)
  # ---------------------------------------------------------------------------------------------
  t0=$SECONDS
  # Fernet and credential key repositories, as `keystone-manage fernet_setup`/`credential_setup`
  # write them (Fernet.generate_key(): 0 = staged key, 1 = primary key, mode 600) without the
  # ~4 s each of those two commands spend importing keystone.
  for repo in fernet-keys credential-keys; do
    [ -s "$KEYSTONE_DIR/$repo/0" ] && [ -s "$KEYSTONE_DIR/$repo/1" ] && continue
    $PY - "$KEYSTONE_DIR/$repo" <<'PY' || die "cannot write keys in $KEYSTONE_DIR/$repo"
import base64, os, sys
os.umask(0o177)
for name in ("0", "1"):
    with open(os.path.join(sys.argv[1], name), "wb") as f:
        f.write(base64.urlsafe_b64encode(os.urandom(32)))
PY
  done
  $PY -c 'import sqlite3, sys; sqlite3.connect(sys.argv[1]).execute("PRAGMA journal_mode=WAL")' \
    "$KEYSTONE_DIR/keystone.db" || die "cannot create $KEYSTONE_DIR/keystone.db"
  kmanage db_sync
  # Creates (or resets) user admin with role admin on project admin, the roles admin, member
  # and reader (admin implies member implies reader), region and the identity endpoints.
  OS_BOOTSTRAP_PASSWORD="$KEYSTONE_ADMIN_PASSWORD" kmanage bootstrap \
    --bootstrap-username "$KEYSTONE_ADMIN_USER" \
    --bootstrap-project-name "$KEYSTONE_ADMIN_PROJECT" \
    --bootstrap-role-name admin \
    --bootstrap-service-name keystone \
    --bootstrap-region-id "$KEYSTONE_REGION" \
    --bootstrap-admin-url "$KEYSTONE_URL" \
    --bootstrap-public-url "$KEYSTONE_URL" \
    --bootstrap-internal-url "$KEYSTONE_URL"
  log "database ready in $((SECONDS - t0)) s ($KEYSTONE_DIR/keystone.db)"

  # ---------------------------------------------------------------------------------------------
  # 4. keystone-wsgi-public under uwsgi
  # ---------------------------------------------------------------------------------------------
  t0=$SECONDS
  port_busy "$KEYSTONE_PORT" && die "port $KEYSTONE_PORT got taken by another process"
  rm -f "$KEYSTONE_PID_FILE"
  # OS_KEYSTONE_CONFIG_FILES: the files keystone's WSGI app reads (keystone/server/flask/core.py),
  # instead of /etc/keystone/keystone.conf. uWSGI's http-socket closes every connection after its
  # answer without saying so; "Connection: close" keeps clients from reusing a closed connection.
  "$UWSGI" --plugin python3 \
    --master --die-on-term --no-orphans --lazy-apps \
    --http-socket "$KEYSTONE_HOST:$KEYSTONE_PORT" \
    --wsgi-file /usr/bin/keystone-wsgi-public \
    --processes 1 --threads "$KEYSTONE_THREADS" --enable-threads \
    --buffer-size 65535 --listen 64 \
    --add-header "Connection: close" \
    --chdir "$KEYSTONE_DIR" \
    --env "OS_KEYSTONE_CONFIG_FILES=$KEYSTONE_CONF" \
    --procname-prefix-spaced "keystone-test[$KEYSTONE_PORT]" \
    --pidfile "$KEYSTONE_PID_FILE" \
    --daemonize "$KEYSTONE_DIR/uwsgi.log" \
    || die "uwsgi failed to start (log: $KEYSTONE_DIR/uwsgi.log)"
  deadline=$((SECONDS + KEYSTONE_START_TIMEOUT))
  until api_up; do
    if [ "$SECONDS" -ge "$deadline" ] || { [ "$((SECONDS - t0))" -gt 3 ] && ! running_pid >/dev/null; }; then
      tail -n 30 "$KEYSTONE_DIR/uwsgi.log" >&2 || true
      tail -n 30 "$KEYSTONE_LOG" >&2 2>/dev/null || true
      pid="$(running_pid || true)"; [ -n "$pid" ] && stop_running "$pid"
      die "Keystone did not answer GET $KEYSTONE_URL within ${KEYSTONE_START_TIMEOUT} s (logs: $KEYSTONE_DIR/uwsgi.log, $KEYSTONE_LOG)"
    fi
    sleep 0.5
  done
  log "uwsgi pid $(running_pid) answers on $KEYSTONE_URL after $((SECONDS - t0)) s"
fi

# ---------------------------------------------------------------------------------------------
# 5. Identities (REST API with an admin token; idempotent) and env.sh
# ---------------------------------------------------------------------------------------------
export KEYSTONE_DIR KEYSTONE_URL KEYSTONE_BASE_URL KEYSTONE_PORT KEYSTONE_PID_FILE KEYSTONE_LOG \
  KEYSTONE_CONF KEYSTONE_REGION KEYSTONE_TOKEN_EXPIRATION \
  KEYSTONE_ADMIN_USER KEYSTONE_ADMIN_PASSWORD KEYSTONE_ADMIN_PROJECT KEYSTONE_SERVICE_PROJECT \
  KEYSTONE_TARIFF_USER KEYSTONE_TARIFF_PASSWORD KEYSTONE_TARIFF_ROLES KEYSTONE_DEMO_PROJECT \
  KEYSTONE_MEMBER_USER KEYSTONE_MEMBER_PASSWORD KEYSTONE_READER_USER KEYSTONE_READER_PASSWORD \
  RATING_ENDPOINT_URL
t0=$SECONDS
$PY - <<'PY' || die "provisioning users/projects/roles failed"
import json, os, shlex, sys, urllib.error, urllib.parse, urllib.request

E = os.environ
URL = E["KEYSTONE_URL"]

def call(method, path, body=None, token=None, ok=(200, 201, 204)):
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(URL + path, data=data, method=method)
    req.add_header("Content-Type", "application/json")
    if token:
        req.add_header("X-Auth-Token", token)
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            raw = r.read()
            return r.status, (json.loads(raw) if raw else None), r.headers
    except urllib.error.HTTPError as e:
        raw = e.read()
        if e.code in ok:
            return e.code, None, e.headers
        sys.exit(f"{method} {path} -> {e.code}: {raw[:500].decode(errors='replace')}")

def token_for(user, password, project):
    _, body, headers = call("POST", "/auth/tokens", {"auth": {
        "identity": {"methods": ["password"], "password": {"user": {
            "name": user, "domain": {"id": "default"}, "password": password}}},
        "scope": {"project": {"name": project, "domain": {"id": "default"}}}}})
    return headers["X-Subject-Token"]

admin = token_for(E["KEYSTONE_ADMIN_USER"], E["KEYSTONE_ADMIN_PASSWORD"], E["KEYSTONE_ADMIN_PROJECT"])

def find(collection, key, **query):
    qs = urllib.parse.urlencode(query)
    _, body, _ = call("GET", f"/{collection}?{qs}", token=admin)
    return body[key]

def ensure_named(collection, key, name, extra=None, domain=True):
    query = {"name": name, **({"domain_id": "default"} if domain else {})}
    found = find(collection, collection, **query)
    if found:
        return found[0]
    body = {"name": name, **({"domain_id": "default"} if domain else {}), **(extra or {})}
    _, created, _ = call("POST", f"/{collection}", {key: body}, token=admin)
    return created[key]

def can_login(name, password):
    req = urllib.request.Request(URL + "/auth/tokens", method="POST", headers={"Content-Type": "application/json"},
        data=json.dumps({"auth": {"identity": {"methods": ["password"], "password": {"user": {
            "name": name, "domain": {"id": "default"}, "password": password}}}}}).encode())
    try:
        with urllib.request.urlopen(req, timeout=30):
            return True
    except urllib.error.HTTPError:
        return False

def ensure_user(name, password):
    found = find("users", "users", name=name, domain_id="default")
    if not found:
        return call("POST", "/users", {"user": {"name": name, "domain_id": "default",
                                                 "password": password, "enabled": True}}, token=admin)[1]["user"]
    # Existing user: reset the password only when it is not the expected one (a password change
    # revokes the user's tokens, which tests running against this Keystone may hold).
    if not can_login(name, password):
        call("PATCH", f"/users/{found[0]['id']}", {"user": {"password": password, "enabled": True}}, token=admin)
    return found[0]

def ensure_role(name):
    found = find("roles", "roles", name=name)
    found = [r for r in found if r.get("domain_id") is None]
    if found:
        return found[0]
    _, created, _ = call("POST", "/roles", {"role": {"name": name}}, token=admin)
    return created["role"]

def grant(project, user, role):
    call("PUT", f"/projects/{project['id']}/users/{user['id']}/roles/{role['id']}", token=admin)

projects = {n: ensure_named("projects", "project", n) for n in
            (E["KEYSTONE_ADMIN_PROJECT"], E["KEYSTONE_SERVICE_PROJECT"], E["KEYSTONE_DEMO_PROJECT"])}
roles = {n: ensure_role(n) for n in {"admin", "member", "reader", "service", *E["KEYSTONE_TARIFF_ROLES"].split()}}
admin_user = find("users", "users", name=E["KEYSTONE_ADMIN_USER"], domain_id="default")[0]
tariff = ensure_user(E["KEYSTONE_TARIFF_USER"], E["KEYSTONE_TARIFF_PASSWORD"])
member = ensure_user(E["KEYSTONE_MEMBER_USER"], E["KEYSTONE_MEMBER_PASSWORD"])
reader = ensure_user(E["KEYSTONE_READER_USER"], E["KEYSTONE_READER_PASSWORD"])
for r in E["KEYSTONE_TARIFF_ROLES"].split():
    grant(projects[E["KEYSTONE_SERVICE_PROJECT"]], tariff, roles[r])
grant(projects[E["KEYSTONE_DEMO_PROJECT"]], member, roles["member"])
grant(projects[E["KEYSTONE_DEMO_PROJECT"]], reader, roles["reader"])
grant(projects[E["KEYSTONE_DEMO_PROJECT"]], admin_user, roles["admin"])

# The rating service (CloudKitty's catalog type) -> Tariff, so clients find it in the catalog.
services = find("services", "services", type="rating")
service = services[0] if services else call("POST", "/services", {"service": {
    "name": "cloudkitty", "type": "rating", "description": "Tariff (CloudKitty API)", "enabled": True}},
    token=admin)[1]["service"]
endpoints = [e for e in find("endpoints", "endpoints", service_id=service["id"], interface="public")
             if e.get("region_id") == E["KEYSTONE_REGION"]]
if not endpoints:
    call("POST", "/endpoints", {"endpoint": {"service_id": service["id"], "interface": "public",
        "region_id": E["KEYSTONE_REGION"], "url": E["RATING_ENDPOINT_URL"], "enabled": True}}, token=admin)
elif endpoints[0]["url"] != E["RATING_ENDPOINT_URL"]:
    call("PATCH", f"/endpoints/{endpoints[0]['id']}", {"endpoint": {"url": E["RATING_ENDPOINT_URL"]}}, token=admin)

# Check every identity can log in (project-scoped) before handing them out.
token_for(E["KEYSTONE_TARIFF_USER"], E["KEYSTONE_TARIFF_PASSWORD"], E["KEYSTONE_SERVICE_PROJECT"])
token_for(E["KEYSTONE_MEMBER_USER"], E["KEYSTONE_MEMBER_PASSWORD"], E["KEYSTONE_DEMO_PROJECT"])
token_for(E["KEYSTONE_READER_USER"], E["KEYSTONE_READER_PASSWORD"], E["KEYSTONE_DEMO_PROJECT"])
token_for(E["KEYSTONE_ADMIN_USER"], E["KEYSTONE_ADMIN_PASSWORD"], E["KEYSTONE_DEMO_PROJECT"])

values = {k: E[k] for k in (
    "KEYSTONE_DIR", "KEYSTONE_URL", "KEYSTONE_BASE_URL", "KEYSTONE_PORT", "KEYSTONE_PID_FILE",
    "KEYSTONE_LOG", "KEYSTONE_CONF", "KEYSTONE_REGION", "KEYSTONE_TOKEN_EXPIRATION",
    "KEYSTONE_ADMIN_USER", "KEYSTONE_ADMIN_PASSWORD", "KEYSTONE_TARIFF_USER",
    "KEYSTONE_TARIFF_PASSWORD", "KEYSTONE_MEMBER_USER", "KEYSTONE_MEMBER_PASSWORD",
    "KEYSTONE_READER_USER", "KEYSTONE_READER_PASSWORD", "RATING_ENDPOINT_URL")}
values.update({
    "KEYSTONE_DOMAIN": "Default",
    "KEYSTONE_ADMIN_PROJECT": E["KEYSTONE_ADMIN_PROJECT"],
    "KEYSTONE_SERVICE_PROJECT": E["KEYSTONE_SERVICE_PROJECT"],
    "KEYSTONE_DEMO_PROJECT": E["KEYSTONE_DEMO_PROJECT"],
    "KEYSTONE_ADMIN_USER_ID": admin_user["id"],
    "KEYSTONE_TARIFF_USER_ID": tariff["id"],
    "KEYSTONE_MEMBER_USER_ID": member["id"],
    "KEYSTONE_READER_USER_ID": reader["id"],
    "KEYSTONE_ADMIN_PROJECT_ID": projects[E["KEYSTONE_ADMIN_PROJECT"]]["id"],
    "KEYSTONE_SERVICE_PROJECT_ID": projects[E["KEYSTONE_SERVICE_PROJECT"]]["id"],
    "KEYSTONE_DEMO_PROJECT_ID": projects[E["KEYSTONE_DEMO_PROJECT"]]["id"],
    "KEYSTONE_RATING_SERVICE_ID": service["id"],
})
path = os.path.join(E["KEYSTONE_DIR"], "env.sh")
with open(path + ".tmp", "w") as f:
    f.write("# Written by test/keystone/setup.sh: source it.\n")
    for k, v in values.items():
        f.write(f"export {k}={shlex.quote(v)}\n")
os.replace(path + ".tmp", path)
PY
log "identities ready in $((SECONDS - t0)) s"
echo "$KEYSTONE_DIR/env.sh"
