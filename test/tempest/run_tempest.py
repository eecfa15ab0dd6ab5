"""Runs CloudKitty's tempest plugin against one region of the drop-in cloud (see README.md).

    /usr/bin/python3 test/tempest/run_tempest.py --region RegionOne --workspace DIR \
        [--plugin-dir /usr/lib/python3/dist-packages] [--concurrency 1] [--filter REGEX]

Reads the Keystone settings from the environment (test/cloud/env.sh: KEYSTONE_URL,
KEYSTONE_ADMIN_USER, KEYSTONE_ADMIN_PASSWORD, KEYSTONE_ADMIN_PROJECT, CLOUD_CLOUDKITTY_USER).
Writes DIR/etc/tempest.conf, DIR/.stestr.conf, runs `stestr run --subunit` there (tempest's own
log in DIR/tempest.log), keeps the stream in DIR/results.subunit and writes DIR/results.json:
{"tests": {test id: {"status": "pass"|"fail"|"skip", "reason": first lines of the failure or the
skip reason, "requests": [{"status", "method", "url", "request_body", "response_body", "location"}]}},
"summary": {...}, "seconds": ...}. Exit code 0 whatever the tests gave; 2 when tempest could not
run at all (no result).
--plugin-dir is the directory that holds the `cloudkitty_tempest_plugin` package: Debian's by
default, or a fetched copy of upstream's (it is put first on PYTHONPATH, so it wins over Debian's).
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time

DEBIAN_PLUGIN_DIR = "/usr/lib/python3/dist-packages"
PYTHON = "/usr/bin/python3"


def write_workspace(args):
    env = os.environ
    etc = os.path.join(args.workspace, "etc")
    os.makedirs(etc, exist_ok=True)
    conf = f"""# Written by test/tempest/run_tempest.py
[DEFAULT]
log_dir = {args.workspace}
log_file = tempest.log
# debug: every request's and answer's headers and body, in tempest.log and in each test's details
debug = True
use_stderr = False

[auth]
admin_username = {env["KEYSTONE_ADMIN_USER"]}
admin_password = {env["KEYSTONE_ADMIN_PASSWORD"]}
admin_project_name = {env["KEYSTONE_ADMIN_PROJECT"]}
admin_domain_name = Default
# A project and user per test class, made and removed by tempest with the admin credentials.
use_dynamic_credentials = True
create_isolated_networks = False

[identity]
uri_v3 = {env["KEYSTONE_URL"]}
auth_version = v3
# The region picks the rating endpoint: Tariff's or CloudKitty's (test/cloud/setup.sh).
region = {args.region}

[identity-feature-enabled]
api_v2 = False

[service_available]
cinder = False
neutron = False
glance = False
swift = False
nova = False
# upstream master's plugin: its tests skip unless this is true (Debian's 2.6.0 has no such option)
cloudkitty = True

[rating_plugin]
service_name = rating
user_name = {env.get("CLOUD_CLOUDKITTY_USER", "cloudkitty")}
endpoint_type = publicURL
"""
    with open(os.path.join(etc, "tempest.conf"), "w") as f:
        f.write(conf)
    with open(os.path.join(args.workspace, ".stestr.conf"), "w") as f:
        f.write("[DEFAULT]\n"
                f"test_path={os.path.join(args.plugin_dir, 'cloudkitty_tempest_plugin', 'tests')}\n"
                f"top_dir={args.plugin_dir}\n")


def plugin_entry_point_dir(args):
    """A dist-info declaring the plugin to tempest when no installed package does (a fetched copy
    without Debian's package): tempest registers the plugin's [rating_plugin] options through it."""
    from importlib import metadata
    if any(ep.name == "cloudkitty_tests" or ep.value.startswith("cloudkitty_tempest_plugin.")
           for ep in metadata.entry_points(group="tempest.test_plugins")):
        return None
    where = tempfile.mkdtemp(prefix="ck-tempest-ep-", dir=args.workspace)
    info = os.path.join(where, "cloudkitty_tempest_plugin_local-0.dist-info")
    os.makedirs(info)
    with open(os.path.join(info, "METADATA"), "w") as f:
        f.write("Metadata-Version: 2.1\nName: cloudkitty-tempest-plugin-local\nVersion: 0\n")
    with open(os.path.join(info, "entry_points.txt"), "w") as f:
        f.write("[tempest.test_plugins]\ncloudkitty_tests = cloudkitty_tempest_plugin.plugin:CloudkittyTempestPlugin\n")
    return where


REQUEST_LINE = re.compile(
    r"^\S+ \S+ \d+ INFO +\[tempest\.lib\.common\.rest_client\] Request \([^)]*\): "
    r"(?P<status>\d+|\S+) (?P<method>[A-Z]+) (?P<url>\S+)", re.M)
BODY = re.compile(r"^\s*Body: (?P<body>.*)$", re.M)
LOCATION = re.compile(r"Response - Headers: \{[^\n]*?'location': '([^']*)'")


def parse_requests(log_text):
    """The requests of one test, in order, from tempest's rest_client log lines (debug=True)."""
    requests = []
    matches = list(REQUEST_LINE.finditer(log_text))
    for i, m in enumerate(matches):
        end = matches[i + 1].start() if i + 1 < len(matches) else len(log_text)
        chunk = log_text[m.end():end]
        bodies = [b.group("body").strip() for b in BODY.finditer(chunk)]
        location = LOCATION.search(chunk)
        requests.append({
            "status": m.group("status"), "method": m.group("method"), "url": m.group("url"),
            "request_body": decode_body(bodies[0]) if bodies else None,
            "response_body": decode_body(bodies[1]) if len(bodies) > 1 else None,
            "location": location.group(1) if location else None,
        })
    return requests


def decode_body(text):
    """The logged body as text: `b'...'` (bytes repr) unquoted, `None` as None."""
    if text == "None":
        return None
    if text.startswith(("b'", 'b"')):
        try:
            import ast
            return ast.literal_eval(text).decode("utf-8", "replace")
        except (ValueError, SyntaxError):
            return text
    return text


def reason_of(details):
    """First meaningful lines: the exception's last lines of the traceback, or the skip reason."""
    for name in ("traceback", "reason"):
        if name in details:
            text = details[name].strip()
            if name == "reason":
                return text
            lines = [line for line in text.splitlines() if line.strip()]
            # From the exception's line on ("tempest.lib.exceptions.BadRequest: ..., Details: ...").
            for index in range(len(lines) - 1, -1, -1):
                if not lines[index].startswith(" ") and ":" in lines[index] and not lines[index].startswith("Traceback"):
                    return "\n".join(lines[index:index + 4])[:1500]
            return "\n".join(lines[-4:])[:1500]
    return None


def parse_subunit(path):
    import subunit
    import testtools
    tests = {}

    def on_test(test):
        status = {"success": "pass", "skip": "skip", "xfail": "pass"}.get(test["status"], "fail")
        if test["status"] in ("exists", None):
            return
        details = {}
        for name, content in test["details"].items():
            try:
                details[name] = content.as_text()
            except Exception:  # noqa: BLE001 (binary attachment)
                details[name] = ""
        log_text = details.get("pythonlogging:''", "") or details.get("pythonlogging", "")
        tests[test["id"]] = {
            "status": status,
            "reason": None if status == "pass" else reason_of(details),
            "requests": parse_requests(log_text),
        }

    with open(path, "rb") as stream:
        case = subunit.ByteStreamToStreamResult(stream, non_subunit_name="stdout")
        result = testtools.StreamToDict(on_test)
        result.startTestRun()
        try:
            case.run(result)
        finally:
            result.stopTestRun()
    return tests


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--region", required=True)
    parser.add_argument("--workspace", required=True)
    parser.add_argument("--plugin-dir", default=os.environ.get("TEMPEST_PLUGIN_DIR") or DEBIAN_PLUGIN_DIR)
    parser.add_argument("--concurrency", type=int, default=int(os.environ.get("TEMPEST_CONCURRENCY", "1")))
    parser.add_argument("--filter", default="cloudkitty_tempest_plugin")
    parser.add_argument("--timeout", type=int, default=int(os.environ.get("TEMPEST_RUN_TIMEOUT", "600")))
    args = parser.parse_args()
    args.workspace = os.path.abspath(args.workspace)
    args.plugin_dir = os.path.abspath(args.plugin_dir)
    if not os.path.isfile(os.path.join(args.plugin_dir, "cloudkitty_tempest_plugin", "plugin.py")):
        sys.exit(f"run_tempest: no cloudkitty_tempest_plugin/plugin.py under {args.plugin_dir}")
    os.makedirs(args.workspace, exist_ok=True)
    write_workspace(args)

    env = dict(os.environ)
    extra = [args.plugin_dir]
    entry_points = plugin_entry_point_dir(args)
    if entry_points:
        extra.append(entry_points)
    env["PYTHONPATH"] = os.pathsep.join(extra + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    env["TEMPEST_CONFIG_DIR"] = os.path.join(args.workspace, "etc")
    env["TEMPEST_CONFIG"] = "tempest.conf"
    env.pop("OS_CLOUD", None)
    subunit_path = os.path.join(args.workspace, "results.subunit")
    started = time.monotonic()
    with open(subunit_path, "wb") as out, open(os.path.join(args.workspace, "stestr.log"), "wb") as err:
        try:
            run = subprocess.run([PYTHON, "-m", "stestr", "run", "--subunit", "--concurrency", str(args.concurrency), args.filter],
                                 cwd=args.workspace, env=env, stdout=out, stderr=err, timeout=args.timeout)
            code = run.returncode
        except subprocess.TimeoutExpired:
            code = "timeout"
    seconds = round(time.monotonic() - started, 1)
    tests = parse_subunit(subunit_path)
    summary = {s: sum(1 for t in tests.values() if t["status"] == s) for s in ("pass", "fail", "skip")}
    with open(os.path.join(args.workspace, "results.json"), "w") as f:
        json.dump({"region": args.region, "plugin_dir": args.plugin_dir, "stestr_exit": code,
                   "seconds": seconds, "summary": summary, "tests": tests}, f, indent=1, sort_keys=True)
    print(f"run_tempest: region {args.region}: {summary['pass']} pass, {summary['fail']} fail, "
          f"{summary['skip']} skip in {seconds} s (stestr exit {code}); {args.workspace}/results.json")
    if not tests:
        with open(os.path.join(args.workspace, "stestr.log"), "rb") as err:
            sys.stderr.write(err.read()[-3000:].decode("utf-8", "replace"))
        sys.exit(2)


if __name__ == "__main__":
    main()
