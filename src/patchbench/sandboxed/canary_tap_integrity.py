"""patchbench (harness-owned): has the TAP channel been intercepted since the interpreter started?

Imported by the harness's ``sitecustomize`` before any code under test. Besides comparing the channel
(``print``, ``sys.stdout``, fd 1) when the canary asks, an audit hook (it cannot be removed) remembers
code of the workspace's program source (not a hidden test file) that sets a trace or profile function,
forks the process or assigns a function's ``__code__``: the tools of filters that restore the channel
before the canary looks. The functions of the hidden test files are checked against a fresh compile of
those files: a code object swapped in memory (``ctypes``) is seen too.
"""

import builtins
import io
import os
import sys
import types


def _fd(n):
    try:
        st = os.fstat(n)
        return (st.st_dev, st.st_ino)
    except OSError:
        return None


_PRINT = builtins.print
_FD1 = _fd(1)
_WS = os.environ.get("PATCHBENCH_WORKSPACE", "").rstrip("/")
_TESTS = frozenset(p for p in os.environ.get("PATCHBENCH_TESTS", "").split(os.pathsep) if p)
_SEEN = []
#: Names a runner script uses to write its results: bound in ``__main__`` to anything else, they filter it.
_CHANNEL_NAMES = ("print", "repr", "str", "format", "open")
_CHANNEL_MODULES = ("sys", "os", "io", "builtins", "traceback")


def _program_source(filename, _ws=_WS, _tests=_TESTS):
    """Code of the workspace that is not a hidden test file (code under test, the candidate's)."""
    if not _ws or not filename or not filename.startswith(_ws + "/"):
        return False
    return filename not in _tests


def _audit(event, args, _getframe=sys._getframe, _seen=_SEEN, _src=_program_source):
    code_set = event == "object.__setattr__" and len(args) > 1 and args[1] == "__code__"
    if not code_set and event not in ("sys.settrace", "sys.setprofile", "os.fork"):
        return
    try:
        caller = _getframe(1).f_code.co_filename
        if _src(caller):
            why = f"{event} from {caller}"
            if why not in _seen:
                _seen.append(why)
    except Exception:
        pass


if _WS:
    sys.addaudithook(_audit)


def _main_globals():
    main = sys.modules.get("__main__")
    if main is None:
        return []
    out = []
    names = vars(main)
    for name in _CHANNEL_NAMES:
        if name in names and names[name] is not getattr(builtins, name):
            out.append(f"__main__.{name} replaced")
    for name in _CHANNEL_MODULES:
        if name in names and sys.modules.get(name) is not None and names[name] is not sys.modules[name]:
            out.append(f"__main__.{name} replaced")
    return out


def _fresh_codes(path):
    """``(co_name, co_firstlineno) -> {co_code}`` of a fresh compile of ``path`` (None when impossible)."""
    out = {}
    try:
        with open(path, "rb") as fh:
            stack = [compile(fh.read(), path, "exec", dont_inherit=True)]
        while stack:
            code = stack.pop()
            out.setdefault((code.co_name, code.co_firstlineno), set()).add(code.co_code)
            stack.extend(k for k in code.co_consts if isinstance(k, types.CodeType))
    except Exception:
        return None
    return out


def _test_code():
    """Functions of the hidden test files whose code is none of their file's code, compiled afresh.

    A function belongs to a file by its globals' ``__file__`` (a swapped code object keeps the function's
    globals); runners load test modules without ``sys.modules`` (``spec_from_file_location``), so the
    functions are found among the objects the collector tracks.
    """
    import gc

    out = []
    fresh = {}
    for fn in gc.get_objects():
        if type(fn) is not types.FunctionType:
            continue
        path = fn.__globals__.get("__file__")
        if not isinstance(path, str) or os.path.abspath(path) not in _TESTS:
            continue
        code = fn.__code__
        if path not in fresh:
            fresh[path] = _fresh_codes(path)
        want = fresh[path]
        if want is None:
            continue
        if code.co_filename != path or code.co_code not in want.get((code.co_name, code.co_firstlineno), ()):
            out.append(f"the code of {fn.__name__} in {os.path.basename(path)} is not its file's")
    return out


def tampered():
    """What now stands between the tests and fd 1 that did not at start-up, or was seen on the way
    (nothing when unsure)."""
    out = list(_SEEN)
    try:
        if builtins.print is not _PRINT:
            out.append("print replaced")
        out.extend(_main_globals())
        out.extend(_test_code())
        if _FD1 is not None and _fd(1) != _FD1:
            out.append("fd 1 replaced")
        # a harness may re-wrap fd 1 (another encoding); anything but the plain io stack on fd 1 may not
        stream = sys.stdout
        buffer = getattr(stream, "buffer", None)
        # unbuffered (python -u, PYTHONUNBUFFERED) the text layer sits right on the FileIO
        raw = buffer if type(buffer) is io.FileIO else getattr(buffer, "raw", None)
        if (
            type(stream) is not io.TextIOWrapper
            or type(buffer) not in (io.BufferedWriter, io.FileIO)
            or type(raw) is not io.FileIO
            or raw.fileno() != 1
        ):
            out.append("sys.stdout is not the plain text stream on fd 1")
    except Exception:
        return out
    return out
