"""Runs a Python console script (Debian's /usr/bin/cloudkitty) many times in one interpreter.

Usage: python3 cloudkitty_cli_runner.py /usr/bin/cloudkitty

The script's top-level imports (cloudkittyclient.shell, with cliff, keystoneauth1 and
openstack.config) are paid once.
Each request is one JSON line on standard input:

    {"argv": [...], "env": {"NAME": "value", ...}, "cwd": "/dir", "stdin": "text"}

and its answer one JSON line on standard output:

    {"code": 0, "stdout": "...", "stderr": "..."}

A run behaves as a fresh ``cloudkitty ...`` process would: os.environ is exactly the request's
environment, sys.argv is the program and its arguments, the script runs as ``__main__``, its
streams are buffers, SystemExit gives the exit code (as the interpreter maps it), an uncaught
exception prints its traceback from the script's frame on. Afterwards everything a run may leave
in the interpreter is put back: the logging configuration (cliff adds a console handler to the
root logger on every run), the warnings filters and their "already shown" registries, the HTTP
connections it opened (a process would close them on exit), and the module-level paths
openstack.config computed from HOME and the working directory at import.

The protocol uses copies of file descriptors 0 and 1; the descriptors themselves are pointed at
/dev/null and standard error, so nothing the client writes to them can corrupt an answer.
"""

import ast
import gc
import importlib
import io
import json
import logging
import os
import runpy
import sys
import traceback
import warnings

PROGRAM = sys.argv[1]
# As `python3 PROGRAM`: the script's directory first on the import path, not this file's.
sys.path[0] = os.path.dirname(PROGRAM)
# cliff's App.NAME (the program name in messages) is read from sys.argv[0] when cliff is imported.
sys.argv[:] = [PROGRAM]


def open_protocol():
    """The request reader and answer writer, on private copies of descriptors 0 and 1."""
    requests_in = os.fdopen(os.dup(0), 'r', encoding='utf-8')
    answers_out = os.fdopen(os.dup(1), 'w', encoding='utf-8')
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.dup2(2, 1)
    return requests_in, answers_out


def load_program():
    """Runs the script's top-level imports once (its imports, not its main: nothing else of it)."""
    with open(PROGRAM, 'rb') as source:
        tree = ast.parse(source.read(), PROGRAM)
    imports = ast.Module(body=[node for node in tree.body if isinstance(node, (ast.Import, ast.ImportFrom))], type_ignores=[])
    exec(compile(imports, PROGRAM, 'exec'), {'__name__': '__cloudkitty_cli_runner_preload__'})


class OpenedHttpSessions:
    """Every requests.Session made during a run, to close them after it as a process exit would."""

    def __init__(self):
        import requests.sessions

        self.sessions = []
        session_class = requests.sessions.Session
        original_init = session_class.__init__
        opened = self.sessions

        def recording_init(session, *args, **kwargs):
            original_init(session, *args, **kwargs)
            opened.append(session)

        session_class.__init__ = recording_init

    def close_all(self):
        """Closes the sessions (and their pooled connections) and forgets them."""
        while self.sessions:
            session = self.sessions.pop()
            try:
                session.close()
            except Exception:  # noqa: BLE001 - a session that fails to close is gone anyway
                pass


class LoggingState:
    """The logging configuration of the interpreter, to put it back after a run."""

    def __init__(self):
        manager = logging.Logger.manager
        self.disable = manager.disable
        self.loggers = {}
        for logger in [logging.getLogger()] + [entry for entry in manager.loggerDict.values() if isinstance(entry, logging.Logger)]:
            self.loggers[logger] = (logger.level, list(logger.handlers), logger.propagate, logger.disabled)

    def restore(self):
        """Puts back levels and handlers; closes the handlers a run added (its --log-file, its console)."""
        logging.disable(self.disable)
        for logger, (level, handlers, propagate, disabled) in self.loggers.items():
            for handler in logger.handlers:
                if handler not in handlers:
                    handler.close()
            if logger.level != level:
                logger.setLevel(level)
            logger.handlers[:] = handlers
            logger.propagate = propagate
            logger.disabled = disabled
        manager = logging.Logger.manager
        for entry in list(manager.loggerDict.values()):
            if isinstance(entry, logging.Logger) and entry not in self.loggers:
                # A logger first made during a run (a lazy import): no handler of a run stays on it.
                for handler in entry.handlers:
                    if not isinstance(handler, logging.NullHandler):
                        handler.close()
                entry.handlers[:] = [handler for handler in entry.handlers if isinstance(handler, logging.NullHandler)]


class WarningsState:
    """The warnings filters, to put them back and forget which warnings a run already showed."""

    def __init__(self):
        self.filters = list(warnings.filters)
        self.showwarning = warnings.showwarning

    def restore(self):
        """Restores the filters; resets the once-per-location registries as a new process has them."""
        warnings.filters[:] = self.filters
        warnings.showwarning = self.showwarning
        warnings.onceregistry.clear()
        warnings._filters_mutated()  # invalidates every module's __warningregistry__


class ImportTimePaths:
    """Reloads openstack.config.loader when HOME or the directory differ from its import's."""

    def __init__(self):
        self.key = self.current_key()

    @staticmethod
    def current_key():
        """What the module's CONFIG_SEARCH_PATH and its file lists were computed from."""
        return (os.environ.get('HOME'), os.environ.get('SNAP_REAL_HOME'), os.environ.get('XDG_CONFIG_HOME'), os.getcwd())

    def refresh(self):
        """Recomputes the module's paths in place (its functions read them as globals)."""
        key = self.current_key()
        if key != self.key and 'openstack.config.loader' in sys.modules:
            importlib.reload(sys.modules['openstack.config.loader'])
        self.key = key


def text_buffer(content=''):
    """A text stream over bytes, UTF-8 as the interpreter's own streams under LANG=C.UTF-8."""
    return io.TextIOWrapper(io.BytesIO(content.encode('utf-8')), encoding='utf-8', errors='strict', newline='\n')


def output_buffer(errors):
    """A writable text stream whose bytes are read back after the run."""
    return io.TextIOWrapper(io.BytesIO(), encoding='utf-8', errors=errors, newline='\n', write_through=True)


def exit_code(error, stderr):
    """The process exit code of SystemExit(error.code), as the interpreter computes it."""
    code = error.code
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    print(code, file=stderr)
    return 1


def print_uncaught(error, stderr):
    """The interpreter's report of an uncaught exception, from the script's own frame down."""
    trace = error.__traceback__
    while trace is not None and trace.tb_frame.f_code.co_filename != PROGRAM:
        trace = trace.tb_next
    traceback.print_exception(type(error), error, trace, file=stderr)


def run(request, sessions, paths):
    """One run of the program; the answer {code, stdout, stderr}."""
    os.environ.clear()
    os.environ.update(request.get('env') or {})
    if request.get('cwd'):
        os.chdir(request['cwd'])
    paths.refresh()
    sys.argv[:] = [PROGRAM] + list(request['argv'])

    stdin = text_buffer(request.get('stdin') or '')
    stdout = output_buffer('strict')
    stderr = output_buffer('backslashreplace')
    saved_streams = (sys.stdin, sys.stdout, sys.stderr, sys.__stdin__, sys.__stdout__, sys.__stderr__)
    sys.stdin = sys.__stdin__ = stdin
    sys.stdout = sys.__stdout__ = stdout
    sys.stderr = sys.__stderr__ = stderr
    logging_state = LoggingState()
    warnings_state = WarningsState()
    code = 0
    try:
        runpy.run_path(PROGRAM, run_name='__main__')
    except SystemExit as error:
        code = exit_code(error, stderr)
    except BaseException as error:  # noqa: BLE001 - the interpreter reports any uncaught exception
        print_uncaught(error, stderr)
        code = 1
    finally:
        for stream in (stdout, stderr):
            try:
                stream.flush()
            except Exception:  # noqa: BLE001 - as at a process exit, a failed flush is dropped
                pass
        logging_state.restore()
        warnings_state.restore()
        sys.stdin, sys.stdout, sys.stderr, sys.__stdin__, sys.__stdout__, sys.__stderr__ = saved_streams
        sessions.close_all()
    return {
        'code': code,
        'stdout': stdout.buffer.getvalue().decode('utf-8', errors='replace'),
        'stderr': stderr.buffer.getvalue().decode('utf-8', errors='replace'),
    }


def main():
    """Answers requests until standard input ends."""
    requests_in, answers_out = open_protocol()
    load_program()
    # The imported modules are never garbage: later collections need not walk them again.
    gc.collect()
    gc.freeze()
    sessions = OpenedHttpSessions()
    paths = ImportTimePaths()
    answers_out.write(json.dumps({'ready': True}) + '\n')
    answers_out.flush()
    for line in requests_in:
        if not line.strip():
            continue
        answer = run(json.loads(line), sessions, paths)
        answers_out.write(json.dumps(answer) + '\n')
        answers_out.flush()


if __name__ == '__main__':
    main()
