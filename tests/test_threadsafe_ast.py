"""ast.parse behind a lock on CPython releases whose AST converter is not thread-safe
(patchbench._threadsafe_ast)."""

from __future__ import annotations

import ast
import sys
import threading

import patchbench  # noqa: F401  (installs the lock where needed)
from patchbench import _threadsafe_ast


def test_the_lock_is_installed_exactly_where_the_release_needs_it() -> None:
    assert bool(getattr(ast.parse, "_patchbench_locked", False)) == _threadsafe_ast._AFFECTED
    first = ast.parse
    _threadsafe_ast.install()  # again: the wrapper is not wrapped once more
    assert ast.parse is first


class _Cycle:
    """Garbage only the cycle collector frees, whose finaliser runs Python code: a collection during a
    parse switches threads in the middle of the AST converter."""

    def __init__(self) -> None:
        self.me = self

    def __del__(self) -> None:
        for _ in range(50):
            pass


def test_parsing_from_many_threads_at_once_never_fails() -> None:
    """What ``make test`` met once (CPython 3.11.7, gh-106905): ``SystemError: AST constructor recursion
    depth mismatch`` while a validation's worker threads planted controls. Without the lock this fails
    on 3.11.7 (a tiny switch interval and finalisers run mid-parse make the race likely)."""
    deep = (
        "x = " + "(" * 40 + "1" + ")" * 40 + "\n" + "def f(a):\n    return [a for a in range(3) if a]\n" * 50
    )
    errors: list[BaseException] = []

    def work() -> None:
        try:
            for _ in range(300):
                for _ in range(200):
                    _Cycle()
                ast.parse(deep)
        except BaseException as e:  # any failure is the finding
            errors.append(e)

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        threads = [threading.Thread(target=work) for _ in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        sys.setswitchinterval(interval)
    assert errors == []
