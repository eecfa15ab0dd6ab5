# The sandbox's harness, run inside the worker's interpreter after conversion.py, in the same
# namespace (a fresh one, not pyodide's globals): compiling and running scripts, and the request
# dispatcher the worker's JavaScript calls. Its last expression is dispatch(op, a, b) -> str:
#
# - compile(name, source) -> {"ok": true} or {"ok": false, "message", "line", "column"};
# - begin(scripts_json, dataframe_json) -> {"status": "ok"} or {"status": "input-error", ...}:
#   resets the interpreter's shared state (see _restore) and converts the dataframe;
# - exec(index, trace) -> runs script index with a fresh global namespace holding data:
#   {"status": "ok"} (with trace "1": and "prices", each service's point prices as decimal text
#   after the script, for the quote's explain), {"status": "raised", "exception", "detail", "line"}
#   or {"status": "invalid", "detail"};
# - finish() -> "=" + the dataframe's JSON text, or "!" + an error object.
#
# Any op may answer {"status": "interrupted"} (the time ran out inside the dispatcher itself) or
# {"status": "memory"}; the worker's JavaScript decides from its own flags what really happened.
# Any op may also answer {"status": "internal", "detail", "replaced"}: the harness's own work
# failed, replaced naming what a script replaced that the standard library relies on (such as
# builtins.str); it is then put back.
#
# At start-up it also removes what Python could use to reach the host's JavaScript (the js and
# pyodide_js modules and pyodide's own packages, and ctypes) and replaces os.system and its kin
# by functions raising PermissionError. These are conveniences that give clear errors; Python can
# get around them, so the worker's process-level confinement is what actually holds.
#
# Read by python-source.ts; the build copies it into dist/.
import builtins as _builtins
import gc as _gc
import itertools as _itertools
import operator as _operator
import os as _os
import posix as _posix
import sys as _sys

# Modules scripts commonly use, imported once so that runs do not pay for them.
import calendar, collections, copy, fractions, functools, itertools, math, random, re, statistics
import string, time, _strptime  # noqa: E401

_compile = compile
_exec = exec
_RECURSION_LIMIT = _sys.getrecursionlimit()
_code_cache = {}
_run = {'scripts': (), 'data': None}


def _context():
    """CloudKitty's arithmetic: Python's default decimal context, whatever a script did to it."""
    return _decimal_mod.Context(
        prec=28, rounding=_decimal_mod.ROUND_HALF_EVEN, Emin=-999999, Emax=999999, capitals=1, clamp=0,
        flags=[], traps=[_decimal_mod.InvalidOperation, _decimal_mod.DivisionByZero, _decimal_mod.Overflow])


def _code_of(name, source):
    key = (name, source)
    code = _code_cache.get(key)
    if code is None:
        code = _compile(source, name, 'exec', dont_inherit=True)
        if len(_code_cache) >= 256:
            _code_cache.clear()
        _code_cache[key] = code
    return code


def _text_of(error):
    if isinstance(error, SyntaxError):
        text = error.msg
    else:
        try:
            text = str(error)
        except BaseException:
            text = '<the exception cannot be printed>'
    return text if len(text) <= 1000 else text[:1000] + '...'


def _line_of(error, name):
    """Line of the innermost frame of the script itself in the error's traceback."""
    line = None
    frame = error.__traceback__
    while frame is not None:
        if frame.tb_frame.f_code.co_filename == name:
            line = frame.tb_lineno
        frame = frame.tb_next
    if line is None and isinstance(error, SyntaxError) and error.filename == name:
        line = error.lineno
    return line


def _raised(error, name):
    return {'status': 'raised', 'exception': type(error).__name__, 'detail': _text_of(error), 'line': _line_of(error, name)}


# ---- requests -------------------------------------------------------------------------------

def _op_compile(name, source):
    try:
        _compile(source, name, 'exec', dont_inherit=True)
    except SyntaxError as error:
        return {'ok': False, 'message': error.msg, 'line': error.lineno or 0, 'column': error.offset or 0}
    except (ValueError, RecursionError, OverflowError) as error:
        return {'ok': False, 'message': '%s: %s' % (type(error).__name__, error), 'line': 0, 'column': 0}
    return {'ok': True}


def _op_begin(scripts_json, dataframe_json):
    _restore()
    _run['data'] = None
    _run['scripts'] = tuple((script['name'], script['source']) for script in _json_loads(scripts_json))
    try:
        _run['data'] = frame_from_json(dataframe_json)
    except (DataframeError, ValueError) as error:
        return {'status': 'input-error', 'detail': str(error)}
    return {'status': 'ok'}


def _prices_of(data):
    """Each service's point prices as decimal text (data is checked: every price converts)."""
    return {service: [str(_to_decimal(point['rating']['price'], ('usage', service, index, 'rating', 'price')))
                      for index, point in enumerate(points)]
            for service, points in _points_of(data)}


def _op_exec(index, trace=False):
    name, source = _run['scripts'][index]
    try:
        code = _code_of(name, source)
    except (SyntaxError, ValueError, RecursionError, OverflowError) as error:
        return _raised(error, name)
    namespace = {'__builtins__': dict(_BUILTINS), '__name__': '__main__', 'data': _run['data']}
    _decimal_mod.setcontext(_context())
    _sys.setrecursionlimit(_RECURSION_LIMIT)
    try:
        _exec(code, namespace)
    except BaseException as error:
        result = _raised(error, name)
        del error
        return result
    finally:
        _sys.settrace(None)
        _sys.setprofile(None)
        _sys.setrecursionlimit(_RECURSION_LIMIT)
    if 'data' not in namespace:
        return {'status': 'invalid', 'detail': 'the script deleted data'}
    data = namespace['data']
    namespace.clear()
    try:
        check_frame(data)
    except DataframeError as error:
        return {'status': 'invalid', 'detail': str(error)}
    _run['data'] = data
    if trace:
        return {'status': 'ok', 'prices': _prices_of(data)}
    return {'status': 'ok'}


def _op_finish():
    data, _run['data'] = _run['data'], None
    try:
        return '=' + frame_to_json(data)
    except (DataframeError, TypeError, ValueError) as error:
        return '!' + _json_dumps({'status': 'invalid', 'detail': str(error)})


def dispatch(op, a='', b=''):
    try:
        if op == 'exec':
            result = _op_exec(int(a), b == '1')
        elif op == 'begin':
            result = _op_begin(a, b)
        elif op == 'finish':
            return _op_finish()
        elif op == 'compile':
            result = _op_compile(a, b)
        else:
            result = {'status': 'internal', 'detail': 'unknown op %r' % (op,)}
        return _json_dumps(result)
    except KeyboardInterrupt:
        return '{"status": "interrupted"}'
    except MemoryError:
        return '{"status": "memory"}'
    except BaseException as error:
        return _internal_error(error)


def _internal_error(error):
    """The harness's own work failed. The usual cause is a script that replaced something the
    standard library the harness calls relies on (builtins.str under json.dumps): name what was
    replaced, put it back, and report both (the worker is replaced anyway)."""
    detail = '%s: %s' % (type(error).__name__, _text_of(error))
    try:
        replaced = _replaced_names()
        _restore()
        return _json_dumps({'status': 'internal', 'detail': detail, 'replaced': replaced})
    except BaseException:
        return '{"status": "internal", "detail": "the sandbox could not describe the error", "replaced": []}'


def _replaced_names(limit=5):
    """Up to limit names (builtins.str, sys.modules['json']) that differ from the start-up snapshot."""
    modules, _, _, _ = _SNAPSHOT
    names = []
    for name, (module, namespace, keys, values) in modules.items():
        if _sys.modules.get(name) is not module:
            names.append("sys.modules['%s']" % name)
        elif namespace is not None:
            for key, value in zip(keys, values):
                if namespace.get(key, _MISSING) is not value:
                    names.append('%s.%s' % (name, key))
        if len(names) >= limit:
            break
    return names[:limit]


# ---- confinement conveniences (the process-level confinement is what holds) -----------------

_BLOCKED = frozenset(('js', 'pyodide_js', 'pyodide', '_pyodide', '_pyodide_core', 'micropip', 'ctypes', '_ctypes'))


class _SandboxImportBlocker:
    @staticmethod
    def find_spec(name, path=None, target=None):
        if name.partition('.')[0] in _BLOCKED:
            raise ImportError('import of %r is not allowed in the sandbox' % name, name=name)
        return None


def _no_processes(*args, **kwargs):
    raise PermissionError('running programs is not allowed in the sandbox')


for _module in (_os, _posix):
    for _name in ('system', 'popen', 'fork', 'forkpty', 'execv', 'execve', 'posix_spawn', 'posix_spawnp',
                  'spawnv', 'spawnve', 'spawnl', 'spawnle', 'kill', 'killpg'):
        if hasattr(_module, _name):
            setattr(_module, _name, _no_processes)
for _name in [name for name in _sys.modules if name.partition('.')[0] in _BLOCKED]:
    del _sys.modules[_name]
_sys.meta_path.insert(0, _SandboxImportBlocker)
_sys.path_importer_cache.clear()
_gc.collect()


# ---- state shared between runs: snapshot now, restore before each run ------------------------

# Modules whose attributes are put back before each run: those scripts use (and this code).
# Comparing every loaded module's namespace would cost milliseconds per run.
_GUARDED = frozenset((
    'builtins', 'sys', '__main__', 'os', 'posix', 'decimal', '_decimal', 'datetime', '_datetime', 'json',
    'json.decoder', 'json.encoder', 'json.scanner', '_json', 'math', 're', 'collections', 'itertools',
    'functools', 'operator', 'copy', 'string', 'time', 'calendar', 'statistics', 'fractions', 'random'))


def _snapshot():
    modules = {}
    for name, module in list(_sys.modules.items()):
        namespace = getattr(module, '__dict__', None)
        if name in _GUARDED and type(namespace) is dict:
            modules[name] = (module, namespace, tuple(namespace), tuple(namespace.values()))
        else:
            modules[name] = (module, None, (), ())
    return modules, list(_sys.meta_path), list(_sys.path), list(_sys.path_hooks)


_SNAPSHOT = _snapshot()
_BUILTINS = dict(_builtins.__dict__)
_is_not = _operator.is_not
_repeat = _itertools.repeat


def _restore():
    """Undoes what earlier runs did to the interpreter: new or replaced entries of sys.modules,
    replaced attributes of the _GUARDED modules, import hooks, tracing, the recursion limit.
    (Not undone: attributes of other modules, in-place changes to objects modules hold.)"""
    modules, meta_path, path, path_hooks = _SNAPSHOT
    loaded = _sys.modules
    if len(loaded) != len(modules):
        for name in [name for name in loaded if name not in modules]:
            del loaded[name]
    for name, (module, namespace, keys, values) in modules.items():
        if loaded.get(name) is not module:
            loaded[name] = module
        if namespace is not None and (len(namespace) != len(keys) or any(map(_is_not, map(namespace.get, keys, _repeat(_MISSING)), values))):
            namespace.clear()
            namespace.update(zip(keys, values))
    _sys.meta_path[:] = meta_path
    _sys.path[:] = path
    _sys.path_hooks[:] = path_hooks
    _sys.settrace(None)
    _sys.setprofile(None)
    _sys.setrecursionlimit(_RECURSION_LIMIT)


# The value of the whole source, as pyodide's runPython returns it: the dispatcher.
dispatch
