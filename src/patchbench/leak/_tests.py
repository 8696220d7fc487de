"""What the failing tests reference, and the shape of the workspace."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from ..task import Task
from ._model import (
    _FUNCTION_VALUES,
    _GRAMMARS,
)
from ._patch import (
    _parser,
)

#: Directory names that hold tests.
_TEST_DIRS = {"tests", "test", "__tests__", "testing", "spec"}


_FUNCTION_DEFS = {
    "function_definition",
    "function_declaration",
    "generator_function_declaration",
    "method_definition",
    "method_declaration",
    "constructor_declaration",
    "function_item",
}


def _ext(path: str) -> str:
    base = path.rsplit("/", 1)[-1]
    return "." + base.rsplit(".", 1)[-1].lower() if "." in base else ""


def _is_test_path(path: str) -> bool:
    """Whether a workspace path is a test file by the common conventions of the supported languages."""
    parts = path.split("/")
    base = parts[-1]
    stem = base.split(".", 1)[0]
    return (
        base.startswith("test_")
        or base == "conftest.py"
        or stem.endswith(("_test", "Test", "Tests"))
        or ".test." in base
        or ".spec." in base
        or any(p in _TEST_DIRS for p in parts[:-1])
    )


def _test_files(task: Task) -> dict[str, str]:
    """The hidden tests, and the workspace's own test files (visible tests may hold F2P tests too)."""
    files = {p: c for p, c in task.workspace_map().items() if _is_test_path(p)}
    files.update({f.path: f.content for f in task.hidden_tests if f.encoding == "text"})
    return files


def _test_name(test_id: str) -> str:
    """The function name an F2P id most likely names: ``f.py::C::test_x[p]`` → ``test_x``,
    ``pkg.mod.C.test_x`` → ``test_x``, ``Suite > case`` → ``case``."""
    name = test_id.split("::")[-1].split(" > ")[-1]
    name = re.sub(r"\[.*\]$", "", name.strip()).removesuffix("()")
    if "::" not in test_id and "/" not in name:
        name = name.rsplit(".", 1)[-1]
    return name.split("/")[0].strip()


def _leaves(node: Any) -> Iterable[Any]:
    stack = [node]
    while stack:
        n = stack.pop()
        if n.child_count == 0:
            yield n
        else:
            stack.extend(n.children)


def _text(node: Any) -> str:
    return node.text.decode("utf-8", errors="replace") if node.text else ""


def _identifiers(node: Any) -> set[str]:
    """The names used under ``node`` (never the text of strings or comments)."""
    return {_text(n) for n in _leaves(node) if n.type.endswith("identifier")}


def _python_references(files: Mapping[str, str], wanted: set[str]) -> set[str]:
    """Names the Python tests ``wanted`` reference, through helpers, fixtures and import aliases.

    A test is a ``def`` whose name is in ``wanted``; it reaches its decorators (``parametrize`` data),
    the module-level code of its file (imports excepted: an imported name counts only where it is used),
    the other methods of its class (``setUp``, helpers), and, transitively, every module-level function
    or class of the test files whose name it uses (helpers, and pytest fixtures by parameter name). When
    no ``def`` matches an F2P id (a TAP script, ids that are not function names), every file is read
    whole, imports excepted.
    """
    parser = _parser(".py")
    roots = {p: parser.parse(c.encode("utf-8")).root_node for p, c in files.items()}
    aliases: dict[str, str] = {}
    top_defs: dict[str, list[Any]] = {}
    for root in roots.values():
        for stmt in root.children:
            if stmt.type in ("import_statement", "import_from_statement"):
                for alias in (c for c in stmt.children if c.type == "aliased_import"):
                    name, as_name = alias.child_by_field_name("name"), alias.child_by_field_name("alias")
                    if name is not None and as_name is not None:
                        aliases[_text(as_name)] = _text(name).rsplit(".", 1)[-1]
                continue
            inner = stmt.child_by_field_name("definition") if stmt.type == "decorated_definition" else stmt
            if inner is not None and inner.type in ("function_definition", "class_definition"):
                name_node = inner.child_by_field_name("name")
                if name_node is not None:
                    top_defs.setdefault(_text(name_node), []).append(stmt)

    def module_code(root: Any) -> list[Any]:
        return [
            s
            for s in root.children
            if s.type not in ("import_statement", "import_from_statement", "decorated_definition")
            and s.type not in ("function_definition", "class_definition")
        ]

    reached: list[Any] = []
    for root in roots.values():
        tests = [
            n
            for n in _walk(root)
            if n.type == "function_definition" and _text(n.child_by_field_name("name") or n) in wanted
        ]
        if not tests:
            continue
        reached += module_code(root)
        for t in tests:
            outer = t.parent if t.parent is not None and t.parent.type == "decorated_definition" else t
            reached.append(outer)
            cls = _enclosing_class(t)
            if cls is not None:
                body = cls.child_by_field_name("body")
                for member in body.children if body is not None else []:
                    d = (
                        member.child_by_field_name("definition")
                        if member.type == "decorated_definition"
                        else member
                    )
                    nm = d.child_by_field_name("name") if d is not None else None
                    if nm is None or not _text(nm).startswith("test"):  # class data, setup, helpers
                        reached.append(member)
                wrapper = cls.parent
                if wrapper is not None and wrapper.type == "decorated_definition":
                    reached += [c for c in wrapper.children if c.type == "decorator"]
    if not reached:
        for root in roots.values():
            reached += [
                s for s in root.children if s.type not in ("import_statement", "import_from_statement")
            ]
    names: set[str] = set()
    seen: set[int] = set()
    queue = list(reached)
    while queue:
        node = queue.pop()
        if node.id in seen:
            continue
        seen.add(node.id)
        new = _identifiers(node) - names
        names |= new
        for n in new:
            queue += top_defs.get(n, [])
    return names | {aliases[n] for n in names if n in aliases}


def _walk(node: Any) -> Iterable[Any]:
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        stack.extend(n.children)


def _enclosing_class(node: Any) -> Any:
    p = node.parent
    while p is not None:
        if p.type == "class_definition":
            return p
        p = p.parent
    return None


def f2p_references(task: Task) -> frozenset[str]:
    """The names the task's failing (F2P) tests reference: its entry points, as far as the screen knows.

    Python test files are read precisely (:func:`_python_references`); the other languages' test files
    by their identifiers (tree-sitter leaves, so names in comments and strings do not count), or by a
    word scan when there is no grammar for them (SQL, shell).
    """
    files = _test_files(task)
    wanted = {_test_name(t) for t in task.fail_to_pass} - {""}
    py = {p: c for p, c in files.items() if _ext(p) == ".py"}
    names = _python_references(py, wanted) if py and _parser(".py") is not None else set()
    for path, content in files.items():
        if path in py:
            continue
        parser = _parser(_ext(path))
        if parser is None:
            names |= set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", content))
        else:
            names |= _identifiers(parser.parse(content.encode("utf-8")).root_node)
    return frozenset(names)


def _workspace_shape(task: Task) -> tuple[list[str], list[str]]:
    """The function names and module stems of the workspace's source files (test files excluded).

    Empty for a repository task: its workspace is a whole repository the task does not hold.
    """
    hidden = {f.path for f in task.hidden_tests}
    functions: list[str] = []
    modules: list[str] = []
    for path, content in task.workspace_map().items():
        ext = _ext(path)
        if path in hidden or _is_test_path(path) or (ext not in _GRAMMARS and ext != ".sql"):
            continue
        modules.append(path.rsplit("/", 1)[-1].rsplit(".", 1)[0])
        parser = _parser(ext)
        if parser is None:
            continue
        for node in _walk(parser.parse(content.encode("utf-8")).root_node):
            if node.type in _FUNCTION_DEFS or (
                node.type == "variable_declarator"
                and (v := node.child_by_field_name("value")) is not None
                and v.type in _FUNCTION_VALUES
            ):
                nm = node.child_by_field_name("name")
                if nm is not None:
                    functions.append(_text(nm))
    return functions, modules
