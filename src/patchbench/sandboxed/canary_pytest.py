"""patchbench's canary plugin (harness-owned): the run's canary test is always collected, and runs last.

It also keeps the run's integrity record (see docs/design/integrity.md):

* a snapshot of pytest's outcome machinery taken when collection starts, compared again at every test's
  teardown report, at the end of the session and when the canary runs; what changed is remembered (a
  swap restored before the canary still counts);
* an audit hook (it cannot be removed) that notes code of the workspace, other than a test module or a
  conftest, calling ``sys.settrace``/``sys.setprofile`` or assigning a function's ``__code__``;
* the hidden tests' own code, checked against a fresh compile of their files (plain, and as pytest's
  assertion rewriter compiles them) after collection and at every test's teardown: a test function whose
  code object was swapped in memory (``ctypes`` writing the function's code pointer needs no
  ``__code__`` assignment) no longer runs a no-op unseen;
* a stream (``PATCHBENCH_CANARY_STREAM``, opened append-only before any code under test is imported):
  one JSON line per test report as it happens, a ``tampered`` line when a check fails, and an ``end`` line
  with the JUnit report's SHA-256 once pytest has written it. The harness compares the JUnit report with
  the stream: a report rewritten after the session, or an outcome better than the streamed one, is
  tampering.
"""

import hashlib
import json
import os
import sys
import types
from pathlib import Path

import pytest

_NAME = os.environ.get("PATCHBENCH_CANARY_NAME", "")
_FILE = os.environ.get("PATCHBENCH_CANARY_FILE", "")
_DECOYS = frozenset(n for n in os.environ.get("PATCHBENCH_CANARY_DECOYS", "").split(",") if n)
_WORKSPACE = os.environ.get("PATCHBENCH_WORKSPACE", "")
_HERE = os.path.dirname(os.path.abspath(__file__))


def _open_stream():
    path = os.environ.get("PATCHBENCH_CANARY_STREAM", "")
    if not path:
        return None
    try:
        return os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    except OSError:
        return None


_STREAM = _open_stream()
_SEEN = []  # what was found tampered so far: sticky, the canary and the stream report it


def _emit(record, _write=os.write, _dumps=json.dumps, _fd=_STREAM):
    if _fd is None:
        return
    try:
        _write(_fd, (_dumps(record) + "\n").encode("utf-8", "replace"))
    except Exception:
        pass


def _flag(why, _seen=_SEEN, _emit=_emit):
    new = [w for w in why if w not in _seen]
    if new:
        _seen.extend(new)
        _emit({"t": "tampered", "why": new[:20]})


#: The hidden test files (absolute); without the list, test modules are told apart by name.
_TESTS = frozenset(p for p in os.environ.get("PATCHBENCH_TESTS", "").split(os.pathsep) if p)


def _in_workspace_code(filename, _ws=_WORKSPACE, _base=os.path.basename, _tests=_TESTS):
    """Code of the workspace that is neither a hidden test module nor a conftest (program source: what
    the candidate wrote; conftest files are the task's, the guard restores them)."""
    if not _ws or not filename or not filename.startswith(_ws.rstrip("/") + "/"):
        return False
    name = _base(filename)
    if name == "conftest.py":
        return False
    if _tests:
        return filename not in _tests
    return not (name.startswith("test_") or name.endswith("_test.py"))


def _audit(event, args, _getframe=sys._getframe, _flag=_flag, _code=_in_workspace_code):
    code_set = event == "object.__setattr__" and len(args) > 1 and args[1] == "__code__"
    if not code_set and event not in ("sys.settrace", "sys.setprofile"):
        return
    try:
        caller = _getframe(1)
        if _code(caller.f_code.co_filename):
            _flag([f"{event} from {caller.f_code.co_filename}"])
    except Exception:
        pass


if _WORKSPACE:
    sys.addaudithook(_audit)


def _module(session, path):
    try:
        return pytest.Module.from_parent(session, path=path)
    except TypeError:  # pytest < 7
        import py

        return pytest.Module.from_parent(session, fspath=py.path.local(str(path)))


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(session, config, items):
    global _ITEMS, _CONFIG
    if not _NAME or not _FILE:
        return
    try:
        _add_canary(session, items)
    except Exception:  # never break the task's own run: a canary left out is calibrated as not run
        pass
    try:
        _ITEMS, _CONFIG = {i.nodeid: i for i in items}, config
        _flag(_code_problems(items))
    except Exception:
        pass


# -- the hidden tests' code is what their files say -------------------------------------------------------

_ITEMS = {}
_CONFIG = None
_FRESH = {}


def _fresh(path):
    """``(co_name, co_firstlineno) -> {co_code}`` of every code object in a fresh compile of ``path``,
    plain and rewritten as pytest's assertion rewriter does (None when it cannot be compiled)."""
    if path in _FRESH:
        return _FRESH[path]
    out = {}
    try:
        with open(path, "rb") as fh:
            source = fh.read()
        tops = [compile(source, path, "exec", dont_inherit=True)]
        try:
            # as pytest's import hook compiles a test module (its private API moves between versions)
            from _pytest.assertion import rewrite

            if hasattr(rewrite, "_rewrite_test"):
                tops.append(rewrite._rewrite_test(Path(path), _CONFIG)[1])
            else:
                import ast

                tree = ast.parse(source, filename=path)
                rewrite.rewrite_asserts(tree, source, path, _CONFIG)
                tops.append(compile(tree, path, "exec", dont_inherit=True))
        except Exception:
            pass
        stack = list(tops)
        while stack:
            code = stack.pop()
            out.setdefault((code.co_name, code.co_firstlineno), set()).add(code.co_code)
            stack.extend(k for k in code.co_consts if isinstance(k, types.CodeType))
    except Exception:
        out = None
    _FRESH[path] = out
    return out


def _code_problems(items):
    """Hidden tests whose function's code claims their file but is not any code of it (compiled afresh)."""
    problems = []
    for item in items:
        fn = getattr(item, "function", None)
        code = getattr(fn, "__code__", None)
        if code is None:
            continue
        # The file a function belongs to is its globals' (a swapped code object keeps the function's
        # globals); a wrapper from a library (hypothesis...) has its library's globals and is skipped.
        path = getattr(fn, "__globals__", {}).get("__file__")
        if not isinstance(path, str) or not (path in _TESTS if _TESTS else _in_workspace_test(path)):
            continue
        fresh = _fresh(path)
        if fresh is None:
            continue
        want = fresh.get((code.co_name, code.co_firstlineno))
        if code.co_filename != path or want is None or code.co_code not in want:
            problems.append(f"the code of {item.nodeid} is not its file's")
    return problems


def _in_workspace_test(path, _ws=_WORKSPACE, _base=os.path.basename):
    name = _base(path)
    return (
        bool(_ws)
        and path.startswith(_ws.rstrip("/") + "/")
        and (name.startswith("test_") or name.endswith("_test.py"))
    )


def _add_canary(session, items):
    mine = [i for i in items if i.name == _NAME]
    if not mine:
        mine = [pytest.Function.from_parent(_module(session, Path(_FILE)), name=_NAME)]
    for item in mine:
        item.repr_failure = _short  # its expected failure needs no traceback (they cost milliseconds)
    # decoys (they fail on correct code) run after every real test, so -x never stops a real one
    # by exact name (a parametrized decoy's cases by their function's): a control drawn as `t_again42`
    # beside a decoy `t_again4` is not a decoy (round eleven: matched as one, its value was lost and a
    # correct fix was rejected about one run in two hundred)
    decoys = [i for i in items if i.name != _NAME and i.name.split("[", 1)[0] in _DECOYS]
    for item in decoys:
        item.repr_failure = _short
    rest = [i for i in items if i.name != _NAME and i not in decoys]
    items[:] = rest + decoys + mine


def _short(excinfo, style=None):
    return "patchbench canary: this test always fails"


# -- process integrity: what the test process looked like before any code under test was imported ---------

#: Callables whose replacement would let code under test decide outcomes.
_WATCHED = {
    "_pytest.runner": (
        "call_and_report",
        "call_runtest_hook",
        "runtestprotocol",
        "pytest_runtest_protocol",
        "pytest_runtest_makereport",
        "pytest_runtest_call",
        "CallInfo",
    ),
    "_pytest.reports": ("TestReport", "BaseReport", "CollectReport"),
    "_pytest.python": ("Function", "pytest_pyfunc_call"),
    "_pytest.junitxml": ("LogXML", "_NodeReporter", "bin_xml_escape"),
    "_pytest.outcomes": ("fail", "skip", "xfail", "exit", "OutcomeException"),
    "_pytest.main": ("pytest_runtestloop", "Session"),
    "unittest.case": ("TestCase",),
    "builtins": ("AssertionError", "BaseException", "Exception", "isinstance", "getattr"),
}
#: Hooks through which a registered plugin could rewrite outcomes.
_HOOKS = (
    "pytest_runtest_makereport",
    "pytest_runtest_logreport",
    "pytest_runtest_protocol",
    "pytest_runtest_call",
    "pytest_pyfunc_call",
    "pytest_report_teststatus",
    "pytest_runtestloop",
    "pytest_sessionfinish",
    "pytest_unconfigure",
    "pytest_terminal_summary",
)
_SNAPSHOT = None


def _state(pm):
    """The snapshot: every watched callable as (label, namespace, name, object, code), the size of each
    watched class's namespace, and each report hook's implementations (plugin, function, code)."""
    import importlib

    flat, sizes = [], []
    for mod_name, attrs in _WATCHED.items():
        mod = sys.modules.get(mod_name) or importlib.import_module(mod_name)
        space = vars(mod)
        for attr in attrs:
            obj = space.get(attr)
            if obj is None:
                continue
            label = f"{mod_name}.{attr}"
            flat.append((label, space, attr, obj, getattr(obj, "__code__", None)))
            if isinstance(obj, type):
                members = vars(obj)  # a live view: later changes show through it
                sizes.append((label, members, len(members)))
                for name, member in members.items():
                    fn = getattr(member, "__func__", member)
                    if callable(fn) or isinstance(member, property):
                        flat.append((f"{label}.{name}", members, name, member, getattr(fn, "__code__", None)))
    return flat, sizes, _hooks(pm)


def _hooks(pm):
    hooks = {}
    for hook in _HOOKS:
        caller = getattr(pm.hook, hook, None)
        if caller is not None:
            hooks[hook] = [
                (i.plugin, i.function, getattr(i.function, "__code__", None)) for i in caller.get_hookimpls()
            ]
    return hooks


def _may_join(plugin, function):
    """Whether a hook implementation may appear (or go) during the session: one of a module plugin whose
    code is not the workspace's program source (a conftest, a plugin installed in the environment that a
    test module's ``pytest_plugins`` names). An object plugin, or code of the workspace's program source
    registering itself (code under test, written by the candidate), may not: that is how outcomes get
    rewritten."""
    if not isinstance(plugin, types.ModuleType):
        return False
    if not _WORKSPACE:
        return True
    code_file = getattr(getattr(function, "__code__", None), "co_filename", "") or ""
    mod_file = getattr(plugin, "__file__", None) or ""
    if not code_file or code_file.startswith("<") or not mod_file:
        return False
    return not _in_workspace_code(code_file) and not _in_workspace_code(mod_file)


def _ours(plugin):
    return os.path.dirname(os.path.abspath(getattr(plugin, "__file__", None) or "/-")) == _HERE


@pytest.hookimpl(tryfirst=True)
def pytest_collection(session):
    global _SNAPSHOT
    try:
        _SNAPSHOT = (session.config.pluginmanager, _state(session.config.pluginmanager))
    except Exception:
        _SNAPSHOT = None


def _compare():
    """What differs from the snapshot now. Identity checks only (a few hundred), so it can run at every
    test's report: well under a millisecond."""
    if _SNAPSHOT is None:
        return []
    try:
        pm, (flat, sizes, hooks) = _SNAPSHOT
        changed = []
        for label, space, name, obj, code in flat:
            now = space.get(name)
            if now is not obj or getattr(getattr(now, "__func__", now), "__code__", None) is not code:
                changed.append(label)
        for label, members, size in sizes:
            if len(members) != size:
                known = {e[2] for e in flat if e[1] is members}
                changed += [
                    f"{label}.{n} added"
                    for n, m in members.items()
                    if n not in known and (callable(getattr(m, "__func__", m)) or isinstance(m, property))
                ]
        for hook, impls in _hooks(pm).items():
            old = hooks.get(hook, [])
            if [(id(p), id(f), id(c)) for p, f, c in impls] == [(id(p), id(f), id(c)) for p, f, c in old]:
                continue
            before = {(id(p), id(f), id(c)) for p, f, c in old}
            now_ids = {(id(p), id(f), id(c)) for p, f, c in impls}
            for p, f, c in impls:
                if (id(p), id(f), id(c)) not in before and not _may_join(p, f):
                    changed.append(f"{hook} implementation {f!r} added")
            for p, f, c in old:
                if (id(p), id(f), id(c)) not in now_ids and (_ours(p) or not isinstance(p, types.ModuleType)):
                    changed.append(f"{hook} implementation {f!r} removed")
        return changed
    except Exception:
        return []


def tampered():
    """What changed in the test process since collection began, now or at any earlier check (nothing
    when it cannot tell)."""
    _flag(_compare())
    return list(_SEEN)


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_logreport(report):
    _emit({"t": "report", "id": report.nodeid, "when": report.when, "outcome": report.outcome})
    if report.when == "teardown":  # fixtures are finalised: a test's own monkeypatch is undone
        _flag(_compare())
        item = _ITEMS.get(report.nodeid)
        if item is not None:
            try:
                _flag(_code_problems([item]))
            except Exception:
                pass


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session):
    _flag(_compare())
    try:
        _flag(_code_problems(list(_ITEMS.values())))
    except Exception:
        pass


@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config):
    # junitxml wrote its report in pytest_sessionfinish: seal it (an exit-time rewrite no longer matches)
    path = getattr(config.option, "xmlpath", None)
    digest = None
    if path:
        try:
            with open(path, "rb") as fh:
                digest = hashlib.sha256(fh.read()).hexdigest()
        except OSError:
            digest = None
    _emit({"t": "end", "xml": digest, "tampered": bool(_SEEN)})
