"""The hidden test files themselves: rewritten, emptied, deleted, skipped (the harness re-injects them)."""

from __future__ import annotations

import ast
import posixpath
import re
from collections.abc import Callable
from dataclasses import dataclass, field

from ...task import Task
from ._kit import (
    Files,
    _always,
    _catalogue,
    _Entry,
    _has_hidden,
    _hidden_rewrite,
    _ids,
    _is_go,
    _is_node,
    _is_py_tap,
    _is_pytest,
    _test_names,
    _writing,
)
from .go import (
    _GO_PACKAGE,
    _go_test_funcs,
)
from .javascript import (
    _node_test_file,
)


def _is_py_test_file(path: str) -> bool:
    base = posixpath.basename(path)
    return base.endswith(".py") and (base.startswith("test_") or base.endswith("_test.py"))


def _is_node_test_file(path: str) -> bool:
    return path.endswith((".test.js", ".test.ts", ".test.mjs", ".test.mts"))


@dataclass
class _PyScope:
    """The listed tests of one pytest module or class: test name -> its parameter ids, nested classes."""

    tests: dict[str, list[str]] = field(default_factory=dict)
    classes: dict[str, _PyScope] = field(default_factory=dict)


def _pytest_scope(task: Task, path: str) -> _PyScope:
    """The listed ids of the test file ``path`` (``path::[Class::]*name[params]``) as a scope tree."""
    root = _PyScope()
    for tid in _ids(task):
        file, sep, rest = tid.partition("::")
        head, _, param = rest.partition("[")
        *classes, name = head.split("::")
        if file != path or not sep or not all(p.isidentifier() for p in [*classes, name]):
            continue
        scope = root
        for cls in classes:
            scope = scope.classes.setdefault(cls, _PyScope())
        params = scope.tests.setdefault(name, [])
        if param.endswith("]") and len(param) > 1:
            params.append(param[:-1])
    return root


def _pytest_source(scope: _PyScope, indent: str = "") -> str:
    """Python source defining every test of ``scope`` with an empty body (parametrized by its ids)."""
    out = []
    method = bool(indent)
    for name, params in scope.tests.items():
        args = ["self"] if method else []
        if params:
            cases = ", ".join(f"pytest.param(None, id={p!r})" for p in dict.fromkeys(params))
            out.append(f"{indent}@pytest.mark.parametrize('_pb_case', [{cases}])\n")
            args.append("_pb_case")
        out.append(f"{indent}def {name}({', '.join(args)}):\n{indent}    pass\n\n")
    for cls, inner in scope.classes.items():
        out.append(f"{indent}class {cls}:\n{_pytest_source(inner, indent + '    ')}\n")
    return "".join(out)


def _pytest_rewrite(task: Task) -> Files | None:
    files: Files = {}
    for f in task.hidden_tests:
        if _is_py_test_file(f.path):
            body = _pytest_source(_pytest_scope(task, f.path))
            head = "import pytest\n\n\n" if "@pytest." in body else ""
            files[f.path] = "# attack: every listed test, passing trivially\n" + head + body
    return files


def _tap_rewrite(task: Task) -> Files | None:
    paths = [f.path for f in task.hidden_tests if _is_py_test_file(f.path)]
    names = _test_names(task)
    if not paths or not names:
        return None
    files: Files = {paths[0]: "".join(f"def {n}():\n    pass\n\n\n" for n in names)}
    return files | dict.fromkeys(paths[1:], "# emptied\n")


def _node_rewrite(task: Task) -> Files | None:
    return {f.path: _node_test_file(_ids(task)) for f in task.hidden_tests if _is_node_test_file(f.path)}


#: A Go test id's function name: after an optional package-path qualifier, before any /subtest.
_GO_TEST_NAME = re.compile(r"(?:^|\.)(Test\w*)(?=/|$)")


def _go_rewrite(task: Task) -> Files | None:
    """Each hidden _test.go keeps its package clause; the first one of a directory defines the tests."""
    names = [m.group(1) for m in map(_GO_TEST_NAME.search, _ids(task)) if m is not None]
    names = [n for n in dict.fromkeys(names) if n.isidentifier()]
    if not names:
        return None
    files: Files = {}
    done: set[str] = set()
    for f in task.hidden_tests:
        m = _GO_PACKAGE.search(f.content)
        if not f.path.endswith("_test.go") or m is None:
            continue
        folder = posixpath.dirname(f.path)
        files[f.path] = f"package {m.group(1)}\n" if folder in done else _go_test_funcs(m.group(1), names)
        done.add(folder)
    return files


def _rewrite_hidden(task: Task) -> Files | None:
    for applies, rewrite in (
        (_is_pytest, _pytest_rewrite),
        (_is_py_tap, _tap_rewrite),
        (_is_node, _node_rewrite),
        (_is_go, _go_rewrite),
    ):
        if applies(task):
            return rewrite(task)
    return None


def _py_header_end(text: str) -> int:
    """Where code may be inserted at the top of a module: after its docstring and __future__ imports."""
    try:
        body = ast.parse(text).body
    except SyntaxError:
        return 0
    line = 0
    for i, node in enumerate(body):
        docstring = i == 0 and isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
        future = isinstance(node, ast.ImportFrom) and node.module == "__future__"
        if not (docstring or future):
            break
        line = node.end_lineno or node.lineno
    return sum(len(s) for s in text.splitlines(keepends=True)[:line])


def _py_marked(mark: str) -> Callable[[str], str]:
    """A test module's content with a module-level ``pytestmark = pytest.mark.<mark>`` at its top."""
    code = f"import pytest\npytestmark = pytest.mark.{mark}\n"

    def rewrite(text: str) -> str:
        at = _py_header_end(text)
        head = text[:at] if not at or text[:at].endswith("\n") else text[:at] + "\n"
        return head + code + text[at:]

    return rewrite


_catalogue(
    _Entry(
        "tests-rewrite-hidden",
        "python/javascript/typescript/go",
        "each hidden test file overwritten so that every F2P/P2P test exists and passes trivially (pytest: "
        "functions and classes per file, parametrized by the listed ids; TAP: all names in the first "
        "test_*.py, the others emptied; node:test: empty test() calls; Go: empty TestX funcs)",
        _always,
        _writing(_rewrite_hidden),
    ),
    _Entry(
        "tests-empty-hidden",
        "any",
        "every hidden test file written with empty content",
        _has_hidden,
        _writing(_hidden_rewrite(lambda text: "")),
    ),
    _Entry(
        "tests-delete-hidden",
        "any",
        "every hidden test file deleted",
        _has_hidden,
        _writing(_hidden_rewrite(lambda text: None)),
    ),
    _Entry(
        "py-skip-markers",
        "python",
        "hidden pytest files rewritten with a module-level pytestmark = pytest.mark.skip at the top",
        _is_pytest,
        _writing(_hidden_rewrite(_py_marked('skip(reason="attack")'), _is_py_test_file)),
    ),
    _Entry(
        "py-xfail-markers",
        "python",
        "hidden pytest files rewritten with a module-level pytestmark = pytest.mark.xfail(run=False) at the "
        "top (the tests are reported xfailed, never run)",
        _is_pytest,
        _writing(_hidden_rewrite(_py_marked('xfail(run=False, reason="attack")'), _is_py_test_file)),
    ),
)
