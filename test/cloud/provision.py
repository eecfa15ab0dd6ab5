"""Keystone identities of the drop-in cloud beyond test/keystone/setup.sh's (see README.md).

`provision.py`: the second region (CLOUD_CLOUDKITTY_REGION) with identity endpoints and a rating
endpoint -> CloudKitty 17; the rating endpoint of CLOUD_TARIFF_REGION -> Tariff; the `rating` role;
CloudKitty's service user `cloudkitty` (admin + service on the service project: keystonemiddleware
validates tokens with it, and the tempest plugin grants it `rating` on each test project).
`provision.py enable-modules URL`: hashmap and pyscripts enabled in the CloudKitty API at URL
(CloudKitty 17's or Tariff's; admin token), so that both servers start alike.
Reads KEYSTONE_* (test/keystone/env.sh) and CLOUD_* from the environment; idempotent.
"""
import json
import os
import sys
import urllib.error
import urllib.parse
import urllib.request

E = os.environ
URL = E["KEYSTONE_URL"]


def call(method, url, body=None, token=None, ok=(200, 201, 204)):
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(url, data=data, method=method)
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
        sys.exit(f"{method} {url} -> {e.code}: {raw[:500].decode(errors='replace')}")


def admin_token():
    _, _, headers = call("POST", URL + "/auth/tokens", {"auth": {
        "identity": {"methods": ["password"], "password": {"user": {
            "name": E["KEYSTONE_ADMIN_USER"], "domain": {"id": "default"},
            "password": E["KEYSTONE_ADMIN_PASSWORD"]}}},
        "scope": {"project": {"name": E["KEYSTONE_ADMIN_PROJECT"], "domain": {"id": "default"}}}}})
    return headers["X-Subject-Token"]


def provision():
    token = admin_token()

    def get(path, key, **query):
        return call("GET", f"{URL}/{path}?{urllib.parse.urlencode(query)}", token=token)[1][key]

    def post(path, key, body):
        return call("POST", f"{URL}/{path}", {key: body}, token=token)[1][key]

    for region in (E["CLOUD_TARIFF_REGION"], E["CLOUD_CLOUDKITTY_REGION"]):
        if not any(r["id"] == region for r in get("regions", "regions")):
            post("regions", "region", {"id": region, "description": "test/cloud/setup.sh"})

    def ensure_endpoint(service_id, region, interface, url):
        found = [e for e in get("endpoints", "endpoints", service_id=service_id, interface=interface)
                 if e.get("region_id") == region]
        if not found:
            post("endpoints", "endpoint", {"service_id": service_id, "interface": interface,
                                           "region_id": region, "url": url, "enabled": True})
        elif found[0]["url"] != url:
            call("PATCH", f"{URL}/endpoints/{found[0]['id']}", {"endpoint": {"url": url}}, token=token)

    # Identity in both regions: tempest and Horizon look the identity service up in their region.
    identity = get("services", "services", type="identity")[0]
    for region in (E["CLOUD_TARIFF_REGION"], E["CLOUD_CLOUDKITTY_REGION"]):
        for interface in ("public", "internal", "admin"):
            ensure_endpoint(identity["id"], region, interface, URL)
    rating = get("services", "services", type="rating")[0]
    ensure_endpoint(rating["id"], E["CLOUD_TARIFF_REGION"], "public", E["CLOUD_TARIFF_URL"])
    ensure_endpoint(rating["id"], E["CLOUD_CLOUDKITTY_REGION"], "public", E["CLOUD_CLOUDKITTY_URL"])

    roles = {r["name"]: r for r in get("roles", "roles") if r.get("domain_id") is None}
    if "rating" not in roles:
        roles["rating"] = post("roles", "role", {"name": "rating"})
    service_project = get("projects", "projects", name=E["KEYSTONE_SERVICE_PROJECT"], domain_id="default")[0]
    name, password = E["CLOUD_CLOUDKITTY_USER"], E["CLOUD_CLOUDKITTY_PASSWORD"]
    users = get("users", "users", name=name, domain_id="default")
    if users:
        user = users[0]
        # A password change revokes the user's tokens: only when it is not the expected one.
        try:
            login(name, password, E["KEYSTONE_SERVICE_PROJECT"])
        except SystemExit:
            call("PATCH", f"{URL}/users/{user['id']}", {"user": {"password": password, "enabled": True}}, token=token)
    else:
        user = post("users", "user", {"name": name, "domain_id": "default", "password": password, "enabled": True})
    for role in ("admin", "service"):
        call("PUT", f"{URL}/projects/{service_project['id']}/users/{user['id']}/roles/{roles[role]['id']}", token=token)
    login(name, password, E["KEYSTONE_SERVICE_PROJECT"])


def login(name, password, project):
    return call("POST", URL + "/auth/tokens", {"auth": {
        "identity": {"methods": ["password"], "password": {"user": {
            "name": name, "domain": {"id": "default"}, "password": password}}},
        "scope": {"project": {"name": project, "domain": {"id": "default"}}}}})[2]["X-Subject-Token"]


def enable_modules(base):
    token = admin_token()
    for module in ("hashmap", "pyscripts"):
        # CloudKitty 17 answers a module PUT with 302 (urllib does not follow a PUT's redirect); Tariff 200 or 302.
        call("PUT", f"{base}/v1/rating/modules/{module}", {"module_id": module, "enabled": True},
             token=token, ok=(200, 204, 302))
    modules = call("GET", f"{base}/v1/rating/modules", token=token)[1]["modules"]
    states = {m["module_id"]: m["enabled"] for m in modules}
    if not (states.get("hashmap") and states.get("pyscripts")):
        sys.exit(f"the rating modules of {base} are not enabled: {states}")


if __name__ == "__main__":
    if sys.argv[1:2] == ["enable-modules"]:
        enable_modules(sys.argv[2])
    else:
        provision()
