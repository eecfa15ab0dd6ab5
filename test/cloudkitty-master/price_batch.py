"""Price one dataframe for many rating runs with CloudKitty master's processor, in one process.

  run.sh python price_batch.py PRICE_PY < {"frame": "<frame JSON text>", "runs": [[ARGS...], ...]}

PRICE_PY is the vendored `price.py` (`run.sh processor-hashmap`); it is imported by path, not
copied, and its `main()` runs once per run with `sys.argv` = ARGS (`--db URL --at ISO [--tenant T]`),
`sys.stdin` = the frame text (so numbers keep their source form), `sys.stdout` and `sys.stderr`
captured, and `SystemExit` caught (3: master raised while pricing, its `{"error"}` is the answer).
Each `main()` parses oslo.config afresh, builds the processor for the tenant and reloads its rules
from the database at `--at`, as a separate `run.sh processor-hashmap` process does; only the
database engine (oslo.db starts it once per process, from the first run's `--db`) is shared, so
every run must name the same database.

Prints one JSON line: {"results": [{"code", "stdout", "stderr"}, ...]}, one per run, in order,
each what that run would have printed and exited with as a process of its own.
"""
import contextlib
import importlib.util
import io
import json
import sys
import traceback


def load_price(path):
    """The vendored price.py as a module (its `main()` runs only when called)."""
    spec = importlib.util.spec_from_file_location('cloudkitty_master_price', path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def database_of(args):
    """The `--db` value of a run's arguments."""
    return args[args.index('--db') + 1] if '--db' in args else None


def exit_code(stop):
    """The process exit code `sys.exit(value)` means."""
    if stop.code is None:
        return 0
    return stop.code if isinstance(stop.code, int) else 1


def price_once(price, frame, args):
    """Runs price.py's `main()` once as `price.py ARGS < frame`; what it printed and its exit code."""
    stdout, stderr = io.StringIO(), io.StringIO()
    saved = sys.argv, sys.stdin
    sys.argv, sys.stdin = ['price.py', *args], io.StringIO(frame)
    code = 0
    try:
        with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
            try:
                price.main()
            except SystemExit as stop:
                code = exit_code(stop)
            except Exception:  # noqa: a crash of its own, as a process would exit 1 with it
                traceback.print_exc()
                code = 1
    finally:
        sys.argv, sys.stdin = saved
    return {'code': code, 'stdout': stdout.getvalue(), 'stderr': stderr.getvalue()}


def main():
    price = load_price(sys.argv[1])
    request = json.load(sys.stdin)
    runs = request['runs']
    databases = {database_of(args) for args in runs}
    if len(databases) > 1:
        named = sorted(map(str, databases))
        sys.exit(f'price_batch.py: one database per batch (oslo.db keeps its first engine), got {named}')
    results = [price_once(price, request['frame'], args) for args in runs]
    print(json.dumps({'results': results}))


if __name__ == '__main__':
    main()
