"""patchbench's canary plugin (harness-owned): the run's canary test is always collected, and runs last."""

import os
import types
from pathlib import Path

import pytest

_NAME = os.environ.get("PATCHBENCH_CANARY_NAME", "")
_FILE = os.environ.get("PATCHBENCH_CANARY_FILE", "")


def _module(session, path):
    try:
        return pytest.Module.from_parent(session, path=path)
    except TypeError:  # pytest < 7
        import py

        return pytest.Module.from_parent(session, fspath=py.path.local(str(path)))


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(session, config, items):
    if not _NAME or not _FILE:
        return
    try:
        _add_canary(session, items)
    except Exception:  # never break the task's own run: a canary left out is calibrated as not run
        pass


def _add_canary(session, items):
    mine = [i for i in items if i.name == _NAME]
    if not mine:
        mine = [pytest.Function.from_parent(_module(session, Path(_FILE)), name=_NAME)]
    for item in mine:
        item.repr_failure = _short  # its expected failure needs no traceback (they cost milliseconds)
    items[:] = [i for i in items if i.name != _NAME] + mine


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
    "_pytest.junitxml": ("LogXML", "_NodeReporter"),
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
)
_SNAPSHOT = None


def _callables(obj):
    """(name, object, code) for obj itself and, for a class, every callable in its namespace."""
    out = [("", obj, getattr(obj, "__code__", None))]
    if isinstance(obj, type):
        for name, member in vars(obj).items():
            fn = getattr(member, "__func__", member)
            if callable(fn) or isinstance(member, property):
                out.append((name, member, getattr(fn, "__code__", None)))
    return out


def _state(pm):
    import importlib
    import sys

    watched = {}
    for mod_name, attrs in _WATCHED.items():
        mod = sys.modules.get(mod_name) or importlib.import_module(mod_name)
        for attr in attrs:
            obj = getattr(mod, attr, None)
            if obj is not None:
                for name, member, code in _callables(obj):
                    watched[f"{mod_name}.{attr}{'.' + name if name else ''}"] = (member, code)
    hooks = {}
    for hook in _HOOKS:
        caller = getattr(pm.hook, hook, None)
        if caller is not None:
            hooks[hook] = [
                (i.plugin, i.function, getattr(i.function, "__code__", None)) for i in caller.get_hookimpls()
            ]
    return watched, hooks


@pytest.hookimpl(tryfirst=True)
def pytest_collection(session):
    global _SNAPSHOT
    try:
        _SNAPSHOT = (session.config.pluginmanager, _state(session.config.pluginmanager))
    except Exception:
        _SNAPSHOT = None


def tampered():
    """What changed in the test process since collection began (nothing when it cannot tell)."""
    if _SNAPSHOT is None:
        return []
    try:
        pm, (watched, hooks) = _SNAPSHOT
        now_watched, now_hooks = _state(pm)
        changed = [
            k
            for k, (obj, code) in watched.items()
            if k not in now_watched or now_watched[k][0] is not obj or now_watched[k][1] is not code
        ]
        changed += [f"{k} added" for k in now_watched if k not in watched]
        for hook, impls in now_hooks.items():
            before = {(id(p), id(f), id(c)) for p, f, c in hooks.get(hook, [])}
            for p, f, c in impls:
                # modules may join during collection (conftest.py, a test module's pytest_plugins);
                # an object plugin that appears then, or a swapped implementation, may not
                if (id(p), id(f), id(c)) not in before and not isinstance(p, types.ModuleType):
                    changed.append(f"{hook} implementation {f!r} added")
        return changed
    except Exception:
        return []
