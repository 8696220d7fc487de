"""Mechanical repair of LLM-written Python test files (seed 000), with real parsers.

:func:`repair_test_source` turns a test file into one that has a chance to be collected, recording
every change as a :class:`Repair`:

* ``markdown-fences`` / ``prose``: code blocks between markdown fences are kept, prose around them and
  non-Python blocks are dropped. The text is not Python yet, so fences are found line by line with a
  regular expression; every segment is then judged by LibCST (does it parse?), never by pattern;
* ``pytest-main-decorator``: ``@pytest.main()`` (or ``@pytest.main``, or ``main`` imported from pytest)
  used as a decorator is removed (it would run pytest at import time);
* ``non-ascii-bytes-literal``: a bytes literal holding non-ASCII characters (a SyntaxError) loses its
  ``b`` prefix and becomes a str literal (the other literals of an implicit concatenation too);
* ``typing-enum``: ``from typing import Enum`` (any name ``enum`` has and ``typing`` lacks) becomes
  ``from enum import ...``; ``typing.Enum`` becomes ``enum.Enum``;
* ``collections-abc``: ``from collections import MutableMapping`` (any ABC) becomes
  ``from collections.abc import ...``; ``collections.Mapping`` becomes ``collections.abc.Mapping``;
* ``missing-import``: names pyflakes reports as undefined get their import: a name the solution defines
  at top level (``missing-solution-import``), else the standard-library module or member it names
  (:data:`MODULES`, :data:`MEMBERS`; ``pytest`` too). ``datetime``, ``time`` and ``copy`` are resolved
  by how the name is used (``datetime.now()`` is the class, ``datetime.timedelta`` the module).

What cannot be fixed is reported in :attr:`RepairedFile.problem` — the file is then unrepairable:
it still does not parse or compile (e.g. ``await`` in a sync function), a name stays undefined, or it
uses an API the (buggy) solution does not define (``from solution import missing``, ``solution.missing``).

:class:`Collector` then checks for real that a repaired file is collected: ``pytest --collect-only`` in
the sandbox, in the task's own prepared environment, with the task's workspace as /app and the tests as
/tests (as the verifier sees them). When the buggy solution itself does not import (the agent must fix
that first), the file is collected against a permissive stand-in module, so that only the test file is
judged. A file that collects no test at all is unrepairable too.
"""

from __future__ import annotations

import ast
import collections.abc
import enum
import json
import re
import shutil
import tempfile
import textwrap
import threading
import typing
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import libcst as cst
from pydantic import BaseModel, ConfigDict
from pyflakes import checker as flakes_checker  # type: ignore[import-untyped]
from pyflakes import messages as flakes_messages

from ..envs import Prepared, env_for
from ..errors import UnsafeFileError
from ..sandbox import Bind, ExecRequest, Limits, Sandbox, get_sandbox
from ..task import Task
from ..untrusted import read_untrusted
from ..workspace import materialise

__all__ = [
    "MEMBERS",
    "MODULES",
    "CollectResult",
    "Collector",
    "Repair",
    "RepairKind",
    "RepairedFile",
    "SolutionApi",
    "repair_test_source",
    "solution_api",
    "strip_markdown",
]


class RepairKind(str, enum.Enum):
    """What a repair did."""

    FENCES = "markdown-fences"
    PROSE = "prose"
    PYTEST_MAIN_DECORATOR = "pytest-main-decorator"
    NON_ASCII_BYTES = "non-ascii-bytes-literal"
    TYPING_ENUM = "typing-enum"
    COLLECTIONS_ABC = "collections-abc"
    MISSING_IMPORT = "missing-import"
    MISSING_SOLUTION_IMPORT = "missing-solution-import"


class Repair(BaseModel):
    """One change made to a test file: its kind and a line for people."""

    model_config = ConfigDict(frozen=True)

    kind: RepairKind
    detail: str


@dataclass
class RepairedFile:
    """A test file after :func:`repair_test_source`.

    Attributes:
        path: its path (relative to tests/).
        original: the text as given.
        source: the repaired text (the original when nothing changed).
        repairs: every change, in order.
        problem: why the file is unrepairable, or None.
    """

    path: str
    original: str
    source: str
    repairs: list[Repair] = field(default_factory=list)
    problem: str | None = None

    @property
    def changed(self) -> bool:
        """Whether the text differs from the original."""
        return self.source != self.original


# ------------------------------------------------------------------------------------------ the solution


@dataclass(frozen=True)
class SolutionApi:
    """What the solution module binds at top level, read statically (never imported).

    Attributes:
        module: its module name (``solution``).
        defined: names it defines itself (def, class, assignment).
        imported: names it binds by importing.
        open_ended: it has a module ``__getattr__`` or a star import: any name may exist.
    """

    module: str
    defined: frozenset[str]
    imported: frozenset[str]
    open_ended: bool

    def has(self, name: str) -> bool:
        """Whether ``solution.<name>`` can exist."""
        return self.open_ended or name in self.defined or name in self.imported


def solution_api(source: str, module: str = "solution") -> SolutionApi | None:
    """The solution's top-level names, or None when it does not parse (nothing can be said then)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return None
    defined: set[str] = set()
    imported: set[str] = set()
    open_ended = False

    def targets(node: ast.AST) -> Iterable[str]:
        for n in ast.walk(node):
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
                yield n.id

    def visit(body: Sequence[ast.stmt]) -> None:
        nonlocal open_ended
        for stmt in body:
            if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                defined.add(stmt.name)
                if stmt.name == "__getattr__":
                    open_ended = True
            elif isinstance(stmt, ast.Import):
                for a in stmt.names:
                    imported.add(a.asname or a.name.split(".")[0])
            elif isinstance(stmt, ast.ImportFrom):
                for a in stmt.names:
                    if a.name == "*":
                        open_ended = True
                    else:
                        imported.add(a.asname or a.name)
            elif isinstance(stmt, ast.Assign | ast.AnnAssign | ast.AugAssign):
                for t in stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]:
                    defined.update(targets(t))
            elif isinstance(stmt, ast.For | ast.AsyncFor | ast.With | ast.AsyncWith):
                if isinstance(stmt, ast.For | ast.AsyncFor):
                    defined.update(targets(stmt.target))
                else:
                    for item in stmt.items:
                        if item.optional_vars is not None:
                            defined.update(targets(item.optional_vars))
                visit(stmt.body)
                visit(getattr(stmt, "orelse", []))
            elif isinstance(stmt, ast.If | ast.While):
                visit(stmt.body)
                visit(stmt.orelse)
            elif isinstance(stmt, ast.Try):
                visit(stmt.body)
                for h in stmt.handlers:
                    if h.name:
                        defined.add(h.name)
                    visit(h.body)
                visit(stmt.orelse)
                visit(stmt.finalbody)
        for n in ast.walk(ast.Module(body=list(body), type_ignores=[])):
            if isinstance(n, ast.NamedExpr) and isinstance(n.target, ast.Name):
                defined.add(n.target.id)

    visit(tree.body)
    return SolutionApi(module, frozenset(defined), frozenset(imported), open_ended)


# ------------------------------------------------------------------------------------- import knowledge

MODULES: frozenset[str] = frozenset(
    [
        "abc",
        "argparse",
        "array",
        "ast",
        "asyncio",
        "base64",
        "binascii",
        "bisect",
        "builtins",
        "calendar",
        "cmath",
        "codecs",
        "collections",
        "concurrent",
        "configparser",
        "contextlib",
        "copy",
        "csv",
        "ctypes",
        "dataclasses",
        "datetime",
        "decimal",
        "difflib",
        "dis",
        "doctest",
        "enum",
        "errno",
        "fnmatch",
        "fractions",
        "functools",
        "gc",
        "glob",
        "gzip",
        "hashlib",
        "heapq",
        "hmac",
        "html",
        "http",
        "importlib",
        "inspect",
        "io",
        "ipaddress",
        "itertools",
        "json",
        "keyword",
        "locale",
        "logging",
        "math",
        "mimetypes",
        "multiprocessing",
        "numbers",
        "operator",
        "os",
        "pathlib",
        "pickle",
        "platform",
        "pprint",
        "queue",
        "random",
        "re",
        "secrets",
        "select",
        "shlex",
        "shutil",
        "signal",
        "socket",
        "sqlite3",
        "stat",
        "statistics",
        "string",
        "struct",
        "subprocess",
        "sys",
        "tarfile",
        "tempfile",
        "textwrap",
        "threading",
        "time",
        "timeit",
        "tokenize",
        "traceback",
        "types",
        "typing",
        "unicodedata",
        "unittest",
        "urllib",
        "uuid",
        "warnings",
        "weakref",
        "xml",
        "zipfile",
        "zlib",
        "pytest",
    ]
)
"""Modules imported (``import NAME``) when NAME is undefined. ``pytest`` is there: the tests run under it."""


def _members() -> dict[str, str]:
    table: dict[str, str] = {}
    # typing first: later, more specific modules override its aliases (Counter, OrderedDict, ...).
    for name in typing.__all__:
        if name[:1].isupper() or name in ("cast", "overload", "final", "get_type_hints", "no_type_check"):
            table[name] = "typing"
    groups = {
        "dataclasses": "dataclass field fields asdict astuple make_dataclass is_dataclass InitVar "
        "FrozenInstanceError",
        "abc": "ABC ABCMeta abstractmethod abstractproperty",
        "enum": "Enum IntEnum Flag IntFlag auto unique",
        "collections": "defaultdict Counter OrderedDict deque namedtuple ChainMap UserDict UserList",
        "functools": "partial partialmethod wraps reduce lru_cache cached_property total_ordering "
        "singledispatch cmp_to_key update_wrapper",
        "itertools": "chain product permutations combinations combinations_with_replacement islice "
        "zip_longest groupby accumulate starmap takewhile dropwhile",
        "pathlib": "Path PurePath PosixPath",
        "decimal": "Decimal InvalidOperation ROUND_HALF_UP ROUND_HALF_EVEN getcontext localcontext",
        "fractions": "Fraction",
        "datetime": "date timedelta timezone tzinfo",
        "unittest.mock": "Mock MagicMock AsyncMock PropertyMock patch call ANY mock_open sentinel",
        "unittest": "TestCase mock",
        "io": "StringIO BytesIO TextIOWrapper",
        "contextlib": "contextmanager asynccontextmanager suppress redirect_stdout redirect_stderr "
        "ExitStack nullcontext",
        "copy": "deepcopy",
        "math": "sqrt floor ceil pi inf nan isclose isnan isinf",
        "textwrap": "dedent",
        "operator": "itemgetter attrgetter methodcaller",
        "heapq": "heappush heappop heapify nlargest nsmallest",
        "bisect": "bisect_left bisect_right insort",
        "types": "SimpleNamespace MappingProxyType ModuleType",
        "tempfile": "TemporaryDirectory NamedTemporaryFile mkdtemp mkstemp",
        "threading": "Thread Lock RLock Event Semaphore",
        "uuid": "UUID uuid4",
        "inspect": "signature",
        "string": "ascii_letters ascii_lowercase ascii_uppercase digits punctuation",
        "time": "sleep perf_counter monotonic",
    }
    for module, names in groups.items():
        for name in names.split():
            table[name] = module
    return table


MEMBERS: dict[str, str] = _members()
"""Names imported from a module (``from MODULE import NAME``) when NAME is undefined."""

#: Names both a module and a member: (module, member's module). Resolved by use (see _ambiguous).
_AMBIGUOUS: dict[str, str] = {"datetime": "datetime", "time": "datetime", "copy": "copy"}
_DATETIME_MODULE_ATTRS = frozenset(
    [
        "date",
        "datetime",
        "time",
        "timedelta",
        "timezone",
        "tzinfo",
        "MINYEAR",
        "MAXYEAR",
        "UTC",
        "datetime_CAPI",
    ]
)

#: Names ``from typing import`` cannot give but ``from enum import`` can.
_ENUM_NAMES = frozenset(n for n in enum.__all__ if not hasattr(typing, n)) | {"Enum", "IntEnum", "auto"}
#: ABCs that moved from ``collections`` to ``collections.abc`` (gone from ``collections`` in 3.10).
_ABC_NAMES = frozenset(collections.abc.__all__)
_MOVES = {"typing": ("enum", _ENUM_NAMES, RepairKind.TYPING_ENUM)}
_ABC_MOVE = ("collections", "collections.abc", _ABC_NAMES, RepairKind.COLLECTIONS_ABC)


# --------------------------------------------------------------------------------- fences and prose

_FENCE = re.compile(r"^[ \t]*(?:`{3,}|~{3,})[ \t]*([A-Za-z0-9_+.#-]*)[^\n`]*$")
_PYTHON_TAGS = frozenset({"", "python", "py", "python3", "py3", "pytest", "pycon"})
_WORD = re.compile(r"[A-Za-z][A-Za-z'’-]*")


def _parses(text: str) -> bool:
    try:
        cst.parse_module(text)
    except (cst.ParserSyntaxError, RecursionError, ValueError):
        return False
    return True


def _statement_like(line: str) -> bool:
    """Whether one line reads as (the start of) Python rather than prose."""
    s = line.strip()
    if not s or s.startswith(("#", "@")):
        return True
    if s.endswith(("\\", ",", "(", "[", "{", "+", "=")):
        return True  # a statement continued on the next line
    for attempt in (s, s + "\n    pass", s + "\n    ..."):
        try:
            ast.parse(attempt)
            return True
        except SyntaxError:
            continue
        except ValueError:
            return False
    # It does not parse: a sentence ("Here is the test:", "Run it with pytest.") is prose; a short
    # fragment may be the first line of a statement continued below.
    return not (len(_WORD.findall(s)) >= 3 or s.endswith((":", ".", "!", "?")))


def _trim_prose(lines: list[str]) -> tuple[list[str], int] | None:
    """Drop prose lines from both ends until the rest parses; None when that does not make it parse."""
    start, end = 0, len(lines)
    while start < end and (not lines[start].strip() or not _statement_like(lines[start])):
        start += 1
    while end > start and (not lines[end - 1].strip() or not _statement_like(lines[end - 1])):
        end -= 1
    kept = lines[start:end]
    if not kept:
        return None
    dropped = sum(1 for ln in lines[:start] + lines[end:] if ln.strip())
    return (kept, dropped) if _parses(textwrap.dedent("".join(kept))) else None


def _looks_like_prose(lines: list[str]) -> bool:
    content = [ln for ln in lines if ln.strip()]
    prose = [ln for ln in content if not _statement_like(ln)]
    return bool(content) and len(prose) * 2 >= len(content)


def strip_markdown(text: str) -> tuple[str, list[Repair]]:
    """Keep the Python of a text that mixes markdown fences, prose and code (see the module docstring)."""
    lines = text.splitlines(keepends=True)
    fences = [i for i, ln in enumerate(lines) if _FENCE.match(ln)]
    repairs: list[Repair] = []
    if not fences:
        if _parses(text):
            return text, []
        trimmed = _trim_prose(lines)
        if trimmed is None:
            return text, []
        kept, dropped = trimmed
        repairs.append(
            Repair(kind=RepairKind.PROSE, detail=f"dropped {dropped} line(s) of prose around the code")
        )
        return _with_newline("".join(kept)), repairs

    # Segments between fence lines; each knows the tag of the fence that opened it (None: none did).
    segments: list[tuple[list[str], str | None]] = []
    bounds = [-1, *fences, len(lines)]
    inside = False
    for k in range(len(bounds) - 1):
        lo, hi = bounds[k] + 1, bounds[k + 1]
        tag: str | None = None
        if k > 0:
            m = _FENCE.match(lines[bounds[k]])
            inside = not inside if m is None or not m.group(1) else True
            tag = (m.group(1).lower() if m else "") if inside else None
        segments.append((lines[lo:hi], tag))

    code: list[tuple[str, bool]] = []  # (text, holds tests)
    prose_lines = 0
    dropped_blocks: list[str] = []
    for seg, tag in segments:
        if not any(ln.strip() for ln in seg):
            continue
        body = textwrap.dedent("".join(seg))
        if tag is not None and tag not in _PYTHON_TAGS:
            dropped_blocks.append(tag)
            continue
        if _parses(body):
            code.append((body, _has_tests(body)))
            continue
        trimmed = _trim_prose(seg)
        if trimmed is not None:
            kept, dropped = trimmed
            prose_lines += dropped
            body = textwrap.dedent("".join(kept))
            code.append((body, _has_tests(body)))
        elif tag or (tag == "" and not _looks_like_prose(seg)):
            # Code in a Python block, with errors of its own: the later steps judge it. (Outside any
            # block, text that does not parse is prose; so is prose-like text after an unmatched fence.)
            code.append((body, _has_tests(body)))
        else:
            prose_lines += sum(1 for ln in seg if ln.strip())
    if not code:
        return text, []
    if sum(1 for _, tests in code if tests) and len(code) > 1:
        without = sum(1 for _, tests in code if not tests)
        if without:
            dropped_blocks.append(f"{without} Python block(s) without tests")
        code = [c for c in code if c[1]]
    detail = f"removed {len(fences)} markdown fence line(s)"
    if dropped_blocks:
        detail += "; dropped block(s): " + ", ".join(dropped_blocks)
    repairs.append(Repair(kind=RepairKind.FENCES, detail=detail))
    if prose_lines:
        repairs.append(Repair(kind=RepairKind.PROSE, detail=f"dropped {prose_lines} line(s) of prose"))
    return _with_newline("\n".join(body.rstrip("\n") + "\n" for body, _ in code)), repairs


def _has_tests(text: str) -> bool:
    return bool(re.search(r"^\s*(?:async\s+)?def\s+test|^\s*class\s+Test", text, re.MULTILINE))


def _with_newline(text: str) -> str:
    return text if text.endswith("\n") else text + "\n"


# ----------------------------------------------------------------------------------- CST transforms


def _dotted(node: cst.BaseExpression | cst.Attribute | cst.Name) -> str | None:
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        base = _dotted(node.value)
        return f"{base}.{node.attr.value}" if base is not None else None
    return None


def _module_of(node: cst.ImportFrom) -> str | None:
    if node.relative or node.module is None:
        return None
    return _dotted(node.module)


def _name_node(dotted: str) -> cst.Name | cst.Attribute:
    head, *rest = dotted.split(".")
    node: cst.Name | cst.Attribute = cst.Name(head)
    for part in rest:
        node = cst.Attribute(value=node, attr=cst.Name(part))
    return node


def _strip_bytes_prefix(node: cst.SimpleString) -> cst.SimpleString:
    prefix = node.prefix
    return node.with_changes(value=prefix.replace("b", "").replace("B", "") + node.value[len(prefix) :])


def _is_bytes(node: cst.SimpleString) -> bool:
    return "b" in node.prefix.lower()


def _non_ascii(node: cst.SimpleString) -> bool:
    return any(ord(c) > 127 for c in node.value)


class _Fixer(cst.CSTTransformer):
    """The repairs that rewrite nodes: decorators, bytes literals, moved imports."""

    def __init__(self) -> None:
        super().__init__()
        self.repairs: list[Repair] = []
        self.need_imports: set[str] = set()
        self.pytest_main_names: set[str] = set()
        self.module_names: set[str] = set()

    def visit_Import(self, node: cst.Import) -> None:
        for alias in node.names:
            if alias.asname is None:
                name = _dotted(alias.name)
                if name:
                    self.module_names.add(name.split(".")[0])

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        if _module_of(node) == "pytest" and not isinstance(node.names, cst.ImportStar):
            for alias in node.names:
                if isinstance(alias.name, cst.Name) and alias.name.value == "main":
                    asname = alias.asname
                    named = asname.name if asname is not None else None
                    self.pytest_main_names.add(named.value if isinstance(named, cst.Name) else "main")

    # @pytest.main() as a decorator
    def _is_pytest_main(self, expr: cst.BaseExpression) -> bool:
        target = expr.func if isinstance(expr, cst.Call) else expr
        name = _dotted(target) if isinstance(target, cst.Name | cst.Attribute) else None
        return name == "pytest.main" or (name is not None and name in self.pytest_main_names)

    def _drop_main(
        self, original: cst.FunctionDef | cst.ClassDef, updated: cst.FunctionDef | cst.ClassDef
    ) -> cst.FunctionDef | cst.ClassDef:
        kept = [d for d in updated.decorators if not self._is_pytest_main(d.decorator)]
        if len(kept) == len(updated.decorators):
            return updated
        for d in updated.decorators:
            if self._is_pytest_main(d.decorator):
                shown = cst.Module(body=[]).code_for_node(d.decorator)
                self.repairs.append(
                    Repair(
                        kind=RepairKind.PYTEST_MAIN_DECORATOR,
                        detail=f"removed @{shown} used as a decorator of {original.name.value}",
                    )
                )
        return updated.with_changes(decorators=kept)

    def leave_FunctionDef(self, original: cst.FunctionDef, updated: cst.FunctionDef) -> cst.FunctionDef:
        result = self._drop_main(original, updated)
        assert isinstance(result, cst.FunctionDef)
        return result

    def leave_ClassDef(self, original: cst.ClassDef, updated: cst.ClassDef) -> cst.ClassDef:
        result = self._drop_main(original, updated)
        assert isinstance(result, cst.ClassDef)
        return result

    # non-ASCII bytes literals
    def leave_SimpleString(self, original: cst.SimpleString, updated: cst.SimpleString) -> cst.SimpleString:
        if _is_bytes(updated) and _non_ascii(updated):
            shown = updated.value if len(updated.value) <= 40 else updated.value[:37] + "..."
            self.repairs.append(
                Repair(kind=RepairKind.NON_ASCII_BYTES, detail=f"bytes literal {shown} made a str literal")
            )
            return _strip_bytes_prefix(updated)
        return updated

    def visit_ConcatenatedString(self, node: cst.ConcatenatedString) -> bool:
        # Mixing bytes and str literals is a SyntaxError: when one part must become str, every part
        # does, all at once in leave_ConcatenatedString (converting one leaf alone cannot be built).
        return not any(_is_bytes(p) and _non_ascii(p) for p in _concat_parts(node))

    def leave_ConcatenatedString(
        self, original: cst.ConcatenatedString, updated: cst.ConcatenatedString
    ) -> cst.ConcatenatedString:
        parts = _concat_parts(original)
        if not any(_is_bytes(p) and _non_ascii(p) for p in parts):
            return updated
        shown = " ".join(p.value for p in parts)
        shown = shown if len(shown) <= 60 else shown[:57] + "..."
        self.repairs.append(
            Repair(
                kind=RepairKind.NON_ASCII_BYTES,
                detail=f"concatenated bytes literal {shown} made a str literal",
            )
        )
        result = original.visit(_AllStr())
        assert isinstance(result, cst.ConcatenatedString)
        return result

    # moved names: typing -> enum, collections -> collections.abc
    def leave_SimpleStatementLine(
        self, original: cst.SimpleStatementLine, updated: cst.SimpleStatementLine
    ) -> cst.SimpleStatementLine | cst.FlattenSentinel[cst.SimpleStatementLine]:
        new_body: list[cst.BaseSmallStatement] = []
        changed = False
        for stmt in updated.body:
            split = self._split_import(stmt) if isinstance(stmt, cst.ImportFrom) else None
            if split is None:
                new_body.append(stmt)
            else:
                changed = True
                new_body.extend(split)
        if not changed:
            return updated
        lines = [
            updated.with_changes(
                body=[s.with_changes(semicolon=cst.MaybeSentinel.DEFAULT)],
                leading_lines=updated.leading_lines if i == 0 else (),
            )
            for i, s in enumerate(new_body)
        ]
        return cst.FlattenSentinel(lines)

    def _split_import(self, node: cst.ImportFrom) -> list[cst.ImportFrom] | None:
        module = _module_of(node)
        if module is None or isinstance(node.names, cst.ImportStar):
            return None
        if module == "typing":
            target, names, kind = _MOVES["typing"]
        elif module == _ABC_MOVE[0]:
            _, target, names, kind = _ABC_MOVE
        else:
            return None
        moved = [a for a in node.names if isinstance(a.name, cst.Name) and a.name.value in names]
        if not moved:
            return None
        stay = [a for a in node.names if a not in moved]
        listed = ", ".join(a.name.value for a in moved if isinstance(a.name, cst.Name))
        self.repairs.append(
            Repair(kind=kind, detail=f"from {module} import {listed} -> from {target} import {listed}")
        )
        out: list[cst.ImportFrom] = []
        if stay:
            out.append(node.with_changes(names=_fix_commas(stay), lpar=None, rpar=None))
        out.append(cst.ImportFrom(module=_name_node(target), names=_fix_commas(moved)))
        return out

    def leave_Attribute(self, original: cst.Attribute, updated: cst.Attribute) -> cst.BaseExpression:
        if not isinstance(updated.value, cst.Name):
            return updated
        base, attr = updated.value.value, updated.attr.value
        if base == "typing" and attr in _ENUM_NAMES and "typing" in self.module_names:
            self.need_imports.add("enum")
            self.repairs.append(Repair(kind=RepairKind.TYPING_ENUM, detail=f"typing.{attr} -> enum.{attr}"))
            return updated.with_changes(value=cst.Name("enum"))
        if base == "collections" and attr in _ABC_NAMES and "collections" in self.module_names:
            self.need_imports.add("collections.abc")
            self.repairs.append(
                Repair(
                    kind=RepairKind.COLLECTIONS_ABC, detail=f"collections.{attr} -> collections.abc.{attr}"
                )
            )
            return updated.with_changes(value=_name_node("collections.abc"))
        return updated


class _AllStr(cst.CSTTransformer):
    def leave_SimpleString(self, original: cst.SimpleString, updated: cst.SimpleString) -> cst.SimpleString:
        return _strip_bytes_prefix(updated) if _is_bytes(updated) else updated


def _concat_parts(node: cst.ConcatenatedString) -> list[cst.SimpleString]:
    """The plain literals of an implicit concatenation (f-strings are never bytes)."""
    out: list[cst.SimpleString] = []
    for side in (node.left, node.right):
        if isinstance(side, cst.ConcatenatedString):
            out.extend(_concat_parts(side))
        elif isinstance(side, cst.SimpleString):
            out.append(side)
    return out


def _fix_commas(aliases: Sequence[cst.ImportAlias]) -> list[cst.ImportAlias]:
    out = []
    for i, a in enumerate(aliases):
        last = i == len(aliases) - 1
        out.append(
            a.with_changes(
                comma=cst.MaybeSentinel.DEFAULT
                if last
                else cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
            )
        )
    return out


# ----------------------------------------------------------------------------------- missing imports


@dataclass
class _Uses:
    attrs: set[str] = field(default_factory=set)
    called: bool = False
    lines: list[int] = field(default_factory=list)


def _undefined(tree: ast.Module, path: str, solution: SolutionApi | None) -> dict[str, _Uses]:
    """Undefined names (pyflakes), with how each is used."""
    w = flakes_checker.Checker(tree, filename=path)
    names: dict[str, _Uses] = {}
    for m in w.messages:
        if isinstance(m, flakes_messages.UndefinedName):
            name = str(m.message_args[0])
        elif isinstance(m, flakes_messages.ImportStarUsage):
            name = str(m.message_args[0])
            if solution is not None and solution.has(name):
                continue  # brought in by `from solution import *`
        else:
            continue
        names.setdefault(name, _Uses()).lines.append(int(getattr(m, "lineno", 0)))
    if names:
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id in names
            ):
                names[node.value.id].attrs.add(node.attr)
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in names:
                names[node.func.id].called = True
    return names


def _resolve(
    name: str, uses: _Uses, solution: SolutionApi | None
) -> tuple[str, str | None, RepairKind] | None:
    """(module, member or None, kind) that defines ``name``; None when nothing known does."""
    if solution is not None and name in solution.defined:
        return solution.module, name, RepairKind.MISSING_SOLUTION_IMPORT
    if name in _AMBIGUOUS:
        member_module = _AMBIGUOUS[name]
        if name == "datetime":
            as_module = not uses.called and bool(uses.attrs) and uses.attrs <= _DATETIME_MODULE_ATTRS
        else:
            as_module = bool(uses.attrs) or not uses.called
        if as_module:
            return name, None, RepairKind.MISSING_IMPORT
        return member_module, name, RepairKind.MISSING_IMPORT
    if name in MODULES:
        return name, None, RepairKind.MISSING_IMPORT
    if name in MEMBERS:
        return MEMBERS[name], name, RepairKind.MISSING_IMPORT
    return None


def _insert_imports(module: cst.Module, statements: list[str]) -> cst.Module:
    """Insert import statements after the docstring and ``from __future__`` imports."""
    body = list(module.body)
    index = 0
    if body and _is_docstring(body[0]):
        index = 1
    while index < len(body) and _is_future(body[index]):
        index += 1
    new = [cst.parse_statement(s) for s in statements]
    return module.with_changes(body=[*body[:index], *new, *body[index:]])


def _is_docstring(stmt: cst.BaseStatement) -> bool:
    return (
        isinstance(stmt, cst.SimpleStatementLine)
        and len(stmt.body) == 1
        and isinstance(stmt.body[0], cst.Expr)
        and isinstance(stmt.body[0].value, cst.SimpleString | cst.ConcatenatedString)
    )


def _is_future(stmt: cst.BaseStatement) -> bool:
    return isinstance(stmt, cst.SimpleStatementLine) and any(
        isinstance(s, cst.ImportFrom) and _module_of(s) == "__future__" for s in stmt.body
    )


def _solution_uses(tree: ast.Module, solution: SolutionApi) -> list[str]:
    """Names the test takes from the solution module that the solution does not bind."""
    if solution.open_ended:
        return []
    missing: list[str] = []
    aliases: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module == solution.module:
            missing.extend(a.name for a in node.names if a.name != "*" and not solution.has(a.name))
        elif isinstance(node, ast.Import):
            aliases.update(a.asname or a.name for a in node.names if a.name == solution.module)
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id in aliases
            and not solution.has(node.attr)
        ):
            missing.append(node.attr)
    return sorted(set(missing))


# -------------------------------------------------------------------------------------------- driver


def repair_test_source(
    text: str, path: str = "test_solution.py", solution: SolutionApi | None = None
) -> RepairedFile:
    """Repair one test file (see the module docstring). Never raises for the file's content.

    Args:
        text: the file's text.
        path: its path, for messages.
        solution: the solution's top-level names (:func:`solution_api`), to import missing solution
            names and to detect tests of an API the solution lacks; None skips both.
    """
    result = RepairedFile(path=path, original=text, source=text)
    code, repairs = strip_markdown(text)
    result.repairs.extend(repairs)
    try:
        module = cst.parse_module(code)
    except (cst.ParserSyntaxError, RecursionError, ValueError) as e:
        result.source = code
        result.problem = f"does not parse: {_first_line(str(e))}"
        return result
    fixer = _Fixer()
    try:
        module = module.visit(fixer)
    except (cst.CSTValidationError, RecursionError, ValueError) as e:  # pragma: no cover - defensive
        result.problem = f"cannot be rewritten: {_first_line(str(e))}"
        return result
    result.repairs.extend(fixer.repairs)
    code = module.code
    try:
        tree = ast.parse(code, filename=path)
    except SyntaxError as e:
        result.source = code
        result.problem = f"does not parse: {e.msg} (line {e.lineno})"
        return result

    present = _bound_modules(tree)
    # Modules a rename needs (typing.Enum -> enum.Enum): `enum` is then undefined and imported below
    # without a second record; `collections.abc` is not undefined (collections is), so it is added here.
    plain: set[str] = {m for m in fixer.need_imports if m not in present}
    undefined = _undefined(tree, path, solution)
    unresolved: list[str] = []
    members: dict[str, list[str]] = {}
    for name, uses in sorted(undefined.items()):
        if name in fixer.need_imports:
            continue
        found = _resolve(name, uses, solution)
        if found is None:
            unresolved.append(name)
            continue
        mod, member, kind = found
        where = f"line {uses.lines[0]}" if uses.lines and uses.lines[0] else "the file"
        if member is None:
            plain.add(mod)
            result.repairs.append(
                Repair(kind=kind, detail=f"import {mod} (undefined name {name!r}, {where})")
            )
        else:
            members.setdefault(mod, []).append(member)
            result.repairs.append(
                Repair(kind=kind, detail=f"from {mod} import {member} (undefined name {name!r}, {where})")
            )
    statements = [f"import {m}" for m in sorted(plain)]
    statements += [f"from {m} import {', '.join(sorted(ns))}" for m, ns in sorted(members.items())]
    if statements:
        module = _insert_imports(module, statements)
        code = module.code
    result.source = code
    if unresolved:
        result.problem = "undefined name(s) no import provides: " + ", ".join(unresolved)
        return result
    if solution is not None:
        missing = _solution_uses(ast.parse(code, filename=path), solution)
        if missing:
            result.problem = f"uses {solution.module} API the solution does not define: " + ", ".join(missing)
            return result
    try:
        compile(code, path, "exec", dont_inherit=True)
    except SyntaxError as e:
        result.problem = f"does not compile: {e.msg} (line {e.lineno})"
    except ValueError as e:
        result.problem = f"does not compile: {e}"
    return result


def _bound_modules(tree: ast.Module) -> set[str]:
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names if a.asname is None)
    return out


def _first_line(text: str) -> str:
    return (text.strip().splitlines() or [""])[0][:200]


# ------------------------------------------------------------------------------------ collect check

_DRIVER = r'''
"""patchbench repair: does one test file collect? (run inside the sandbox, in the task's environment)"""
import json
import sys
import types

out_path, module, test_file = sys.argv[1:4]
result = {"import_ok": True, "import_error": None, "stubbed": False}


class _Anything:
    """Stands in for whatever the test takes from a solution that does not import."""

    def __init__(self, *args, **kwargs):
        pass

    def __call__(self, *args, **kwargs):
        return _Anything()

    def __getattr__(self, name):
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        return _Anything()

    def __mro_entries__(self, bases):
        return (object,)

    def __iter__(self):
        return iter(())


def _module_getattr(name):
    if name.startswith("__") and name.endswith("__"):
        raise AttributeError(name)
    return _Anything()


try:
    __import__(module)
except BaseException as e:  # SystemExit and KeyboardInterrupt from a broken module too
    result["import_ok"] = False
    result["import_error"] = (type(e).__name__ + ": " + str(e))[:500]
    for name in [m for m in sys.modules if m == module or m.startswith(module + ".")]:
        del sys.modules[name]
    stub = types.ModuleType(module)
    stub.__getattr__ = _module_getattr
    sys.modules[module] = stub
    result["stubbed"] = True

import pytest


class _Plugin:
    def __init__(self):
        self.items = []
        self.errors = []

    def pytest_collectreport(self, report):
        if report.failed:
            self.errors.append(str(report.longreprtext)[-1500:])

    def pytest_collection_finish(self, session):
        self.items = [item.nodeid for item in session.items]


plugin = _Plugin()
try:
    rc = int(pytest.main(["--collect-only", "-q", "-p", "no:cacheprovider", test_file], plugins=[plugin]))
except BaseException as e:
    rc = -1
    plugin.errors.append(type(e).__name__ + ": " + str(e))
result.update(rc=rc, items=plugin.items, errors=plugin.errors)
with open(out_path, "w") as fh:
    json.dump(result, fh)
'''


class CollectResult(BaseModel):
    """What ``pytest --collect-only`` made of one test file.

    Attributes:
        ok: the file collects at least one test and no collection error.
        collected: how many tests it collects.
        solution_imports: whether the buggy solution imports (False: collected against a stand-in).
        solution_error: the solution's import error, when it has one.
        problem: why the file does not collect, when it does not.
    """

    ok: bool
    collected: int = 0
    solution_imports: bool | None = None
    solution_error: str | None = None
    problem: str | None = None


class Collector:
    """Runs ``pytest --collect-only`` on repaired test files, in the sandbox and the task's environment.

    Args:
        sandbox: a Sandbox or a backend name (``bwrap``; ``none`` runs without isolation).
        cache_dir: the environment cache.
        timeout_s: the time limit of one collection.
    """

    def __init__(
        self, sandbox: Sandbox | str = "bwrap", cache_dir: Path | None = None, timeout_s: float = 60.0
    ) -> None:
        self.sandbox = get_sandbox(sandbox) if isinstance(sandbox, str) else sandbox
        self.cache_dir = cache_dir
        self.timeout_s = timeout_s
        self._envs: dict[str, Prepared] = {}
        self._lock = threading.Lock()

    def _env(self, task: Task) -> Prepared:
        """The task's prepared environment, looked up once per distinct environment spec."""
        spec = task.env
        key = json.dumps(
            [task.language, spec.image, sorted(spec.python_requirements), list(spec.setup_cmds)], default=str
        )
        with self._lock:
            if key not in self._envs:
                self._envs[key] = env_for(task.env.language, self.cache_dir).prepare(task)
            return self._envs[key]

    def check(
        self,
        task: Task,
        solution: str,
        tests: Mapping[str, str],
        support: Mapping[str, bytes] | None = None,
    ) -> dict[str, CollectResult]:
        """Collect each of ``tests`` (path under /tests → repaired text) against the task's workspace.

        Args:
            task: the task (its workspace becomes /app, its environment runs pytest).
            solution: the solution's path in the workspace (its module is imported first).
            tests: the test files to check, repaired.
            support: the other files of tests/ (conftest.py, data), placed beside them.

        Raises:
            EnvError: the task's environment cannot be prepared.
            SandboxError: the sandbox failed.
        """
        env = self._env(task)
        module = Path(solution).name.removesuffix(".py")
        out: dict[str, CollectResult] = {}
        with tempfile.TemporaryDirectory(prefix="patchbench-collect-") as tmp:
            root = Path(tmp)
            driver = root / "driver"
            driver.mkdir()
            (driver / "collect.py").write_text(_DRIVER, encoding="utf-8")
            for path, text in tests.items():
                app, tdir, res = root / "app", root / "tests", root / "out"
                for d in (app, tdir, res):
                    shutil.rmtree(d, ignore_errors=True)
                    d.mkdir()
                materialise(task.workspace, app)
                for rel, data in (support or {}).items():
                    dest = tdir / rel
                    dest.parent.mkdir(parents=True, exist_ok=True)
                    dest.write_bytes(data)
                dest = tdir / path
                dest.parent.mkdir(parents=True, exist_ok=True)
                dest.write_text(text, encoding="utf-8")
                out[path] = self._collect(env, module, solution, path, app, tdir, res, driver)
        return out

    def _collect(
        self,
        env: Prepared,
        module: str,
        solution: str,
        path: str,
        app: Path,
        tdir: Path,
        res: Path,
        driver: Path,
    ) -> CollectResult:
        sb = self.sandbox
        b_app, b_tests = Bind(app, "/app", writable=True), Bind(tdir, "/tests", writable=True)
        b_out, b_drv = Bind(res, "/.patchbench-out", writable=True), Bind(driver, "/.patchbench-driver")
        solution_dir = str(Path(sb.path(b_app)) / Path(solution).parent)
        req = ExecRequest(
            argv=[
                "python",
                f"{sb.path(b_drv)}/collect.py",
                f"{sb.path(b_out)}/result.json",
                module,
                f"{sb.path(b_tests)}/{path}",
            ],
            cwd=sb.path(b_app),
            binds=[b_app, b_tests, b_out, b_drv, *(Bind(p, str(p)) for p in env.ro_paths)],
            env={
                "PATH": ":".join([*env.path, "/usr/local/bin:/usr/bin:/bin"]),
                **env.env,
                "PYTHONPATH": solution_dir,
                "PYTHONDONTWRITEBYTECODE": "1",
            },
            limits=Limits(timeout_s=self.timeout_s),
        )
        r = sb.exec(req)
        if r.timed_out:
            return CollectResult(ok=False, problem=f"collection timed out after {self.timeout_s:g}s")
        try:
            # Written by the sandboxed driver, with the dataset's code loaded: read like a report.
            data = json.loads(read_untrusted(res / "result.json", root=res, owner=r.uid).decode("utf-8"))
        except UnsafeFileError as e:
            return CollectResult(ok=False, problem=f"the collection result was tampered with: {e}")
        except (OSError, ValueError):
            tail = " ".join((r.text("stderr") or r.text("stdout")).split())[-300:]
            return CollectResult(ok=False, problem=f"collection crashed (exit {r.exit_code}): {tail}")
        items = [str(i) for i in data.get("items") or []]
        errors = [str(e) for e in data.get("errors") or []]
        rc = data.get("rc")
        common = {
            "collected": len(items),
            "solution_imports": bool(data.get("import_ok")),
            "solution_error": data.get("import_error"),
        }
        if errors or rc not in (0, 5):
            why = _collect_error(errors) if errors else f"pytest exited {rc}"
            return CollectResult(ok=False, problem=f"does not collect: {why}", **common)
        if not items:
            return CollectResult(ok=False, problem="collects no test", **common)
        return CollectResult(ok=True, **common)


def _collect_error(errors: list[str]) -> str:
    """The most telling line of pytest's collection error (the ``E   ...`` lines)."""
    for text in errors:
        lines = [ln[1:].strip() for ln in text.splitlines() if ln.startswith("E ")]
        if lines:
            return " ".join(lines)[-300:]
    return " ".join(errors[0].split())[-300:]
