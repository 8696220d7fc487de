"""The leak screen: does the prompt tell the agent *where the fix goes*, beyond what it already has?

A prompt leaks when it narrows the location of the fix, or gives the fix away. Naming the function a bug
report is about is not that: real issue texts name the API the user called, and when the failing tests
call that function, the failure says as much. So each finding gets a level, with its evidence and reason:

* ``leak``: the prompt names a symbol the gold patch edits that the failing (F2P) tests never reference
  (an internal helper), outside any quoted error output; or it quotes a line the gold patch removes
  (outside error output) or adds; or it quotes an expression the gold patch introduces;
* ``hint``: the edited symbol, or the buggy line, appears only in quoted error output or a traceback,
  which running the failing tests on the buggy code shows the agent anyway;
* ``none``: the prompt names an edited symbol that carries no location information: an entry point the
  F2P tests reference, the only function of the workspace, or the only module the workspace consists of.

What the gold patch edits is found with a real parser, not a regex: each file the patch touches is parsed
with its tree-sitter grammar (Python, JavaScript, TypeScript, Go, Java, Rust; SQL files count by their
file stem and any view/CTE names), and a symbol is *edited* when a removed line, or the position of an
added line, falls inside its definition; only the innermost definition counts (changing one method leaves
its class's name free to mention as an entry point). What the failing tests reference is found with the
same grammars (:func:`f2p_references`): for Python precisely (the test functions the F2P ids name, with
the helpers, fixtures and module-level code they reach, imports resolved through their aliases), for the
other languages by the identifiers of the hidden test files (comments and strings excluded).

:func:`screen_prompt` is the one implementation: ``validate`` calls it, and so can any later gate (a
dataset builder, a generated problem statement: pass ``prompt=``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import Enum
from functools import cache
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from .task import Task

#: File extension → (grammar module, language function name).
_GRAMMARS: dict[str, tuple[str, str]] = {
    ".py": ("tree_sitter_python", "language"),
    ".js": ("tree_sitter_javascript", "language"),
    ".mjs": ("tree_sitter_javascript", "language"),
    ".cjs": ("tree_sitter_javascript", "language"),
    ".jsx": ("tree_sitter_javascript", "language"),
    ".ts": ("tree_sitter_typescript", "language_typescript"),
    ".mts": ("tree_sitter_typescript", "language_typescript"),
    ".tsx": ("tree_sitter_typescript", "language_tsx"),
    ".go": ("tree_sitter_go", "language"),
    ".java": ("tree_sitter_java", "language"),
    ".rs": ("tree_sitter_rust", "language"),
}

#: Node types that define a named symbol, with the field (or child type) that holds the name.
_DEFINITIONS: dict[str, str] = {
    # python
    "function_definition": "name",
    "class_definition": "name",
    # javascript / typescript
    "function_declaration": "name",
    "generator_function_declaration": "name",
    "method_definition": "name",
    "class_declaration": "name",
    "abstract_class_declaration": "name",
    "interface_declaration": "name",
    "type_alias_declaration": "name",
    "variable_declarator": "name",  # const f = () => ... (only when the value is a function)
    # go
    "method_declaration": "name",
    "type_spec": "name",
    # java
    "constructor_declaration": "name",
    "enum_declaration": "name",
    "record_declaration": "name",
    # rust
    "function_item": "name",
    "struct_item": "name",
    "enum_item": "name",
    "trait_item": "name",
    "impl_item": "type",
    "mod_item": "name",
}
_FUNCTION_VALUES = {"arrow_function", "function_expression", "function", "generator_function"}
_MIN_QUOTE = 8


class LeakLevel(str, Enum):
    """How much a finding of the leak screen gives away, from least to most."""

    NONE = "none"
    """The prompt names an edited symbol, but one the agent already has (an entry point the failing tests
    reference, the workspace's only function or module): no location information."""
    HINT = "hint"
    """Only in quoted error output or a traceback, which the failing tests show on the buggy code too."""
    LEAK = "leak"
    """The prompt narrows where the fix goes (an internal helper, the buggy line) or gives the fix away."""

    @property
    def rank(self) -> int:
        """0 for ``none``, 1 for ``hint``, 2 for ``leak``: compare levels with this."""
        return _RANKS[self.value]


_RANKS = {"none": 0, "hint": 1, "leak": 2}


class LeakHit(BaseModel):
    """One finding of the leak screen: what was found, where, how much it gives away and why.

    Attributes:
        kind: ``names_symbol`` (an edited symbol), ``quotes_changed_line`` (a removed or added line) or
            ``quotes_fixed_expression`` (an expression the gold patch introduces).
        symbol: the edited symbol, the quoted line or the quoted expression.
        file: the file of the gold patch it comes from.
        evidence: the prompt line that contains it.
        level: ``leak``, ``hint`` or ``none`` (see :class:`LeakLevel`).
        reason: one line saying why the finding has its level.
    """

    model_config = ConfigDict(frozen=True)

    kind: str
    symbol: str
    file: str
    evidence: str
    level: LeakLevel = LeakLevel.LEAK
    reason: str = ""


class LeakScreen(BaseModel):
    """The leak screen of one prompt against its task's gold patch.

    Attributes:
        level: the highest level of any finding (``none`` when there is none).
        hits: every finding, ``none``-level ones included (their reason says why they are harmless).
    """

    model_config = ConfigDict(frozen=True)

    level: LeakLevel = LeakLevel.NONE
    hits: list[LeakHit] = Field(default_factory=list)

    def at_least(self, level: LeakLevel) -> list[LeakHit]:
        """The findings at ``level`` or above."""
        return [h for h in self.hits if h.level.rank >= level.rank]


@dataclass(frozen=True)
class _FileChange:
    path: str
    old_lines: frozenset[int]  # 1-based pre-image lines removed or next to an insertion
    removed: tuple[str, ...]
    added: tuple[str, ...]


def parse_patch(patch: str) -> list[_FileChange]:
    """Per file: the pre-image lines a unified diff touches and its removed/added lines.

    Hunk bodies are read by their header counts, so a removed line that starts with ``--`` is never
    mistaken for a file header.
    """
    out: list[_FileChange] = []
    hunk = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
    path: str | None = None
    old: set[int] = set()
    removed: list[str] = []
    added: list[str] = []
    line_no = old_left = new_left = 0

    def flush() -> None:
        if path and path != "/dev/null":
            out.append(_FileChange(path, frozenset(old), tuple(removed), tuple(added)))

    for line in patch.splitlines():
        if old_left > 0 or new_left > 0:
            tag, body = line[:1], line[1:]
            if tag == "-":
                old.add(line_no)
                removed.append(body)
                line_no += 1
                old_left -= 1
            elif tag == "+":
                old.update((max(1, line_no - 1), line_no))
                added.append(body)
                new_left -= 1
            elif tag == "\\":
                pass  # "\ No newline at end of file"
            else:
                line_no += 1
                old_left -= 1
                new_left -= 1
            continue
        m = hunk.match(line)
        if m:
            line_no = int(m.group(1))
            old_left = int(m.group(2)) if m.group(2) is not None else 1
            new_left = int(m.group(4)) if m.group(4) is not None else 1
            continue
        if line.startswith("--- "):
            flush()
            path, old, removed, added = None, set(), [], []
        elif line.startswith("+++ "):
            target = line[4:].split("\t")[0].strip()
            path = target[2:] if target.startswith("b/") else target
    flush()
    return out


@cache
def _parser(ext: str) -> Any:
    spec = _GRAMMARS.get(ext)
    if spec is None:
        return None
    import importlib

    import tree_sitter

    try:
        module = importlib.import_module(spec[0])
    except ModuleNotFoundError:
        return None
    return tree_sitter.Parser(tree_sitter.Language(getattr(module, spec[1])()))


def _name_of(node: Any) -> str | None:
    field = _DEFINITIONS[node.type]
    if node.type == "variable_declarator":
        value = node.child_by_field_name("value")
        if value is None or value.type not in _FUNCTION_VALUES:
            return None
    target = node.child_by_field_name(field)
    if target is None:
        return None
    text = target.text.decode("utf-8", errors="replace") if target.text else ""
    # impl blocks name a type, possibly generic: keep the bare identifier
    m = re.match(r"[A-Za-z_][A-Za-z0-9_]*", text)
    return m.group(0) if m else None


def changed_symbols(source: str, path: str, lines: frozenset[int]) -> list[str]:
    """The innermost named definitions of ``source`` that contain any of ``lines`` (1-based)."""
    ext = "." + path.rsplit(".", 1)[-1].lower() if "." in path else ""
    if ext == ".sql":
        stem = path.rsplit("/", 1)[-1].rsplit(".", 1)[0]
        names = re.findall(
            r"(?i)\b(?:create\s+(?:temp\s+|temporary\s+)?view\s+|with\s+|,\s*)(\w+)\s+as\s*\(", source
        )
        return [stem, *dict.fromkeys(names)]
    parser = _parser(ext)
    if parser is None:
        return []
    tree = parser.parse(source.encode("utf-8"))
    found: list[str] = []

    def visit(node: Any, inner: list[str]) -> None:
        start, end = node.start_point[0] + 1, node.end_point[0] + 1
        if not any(start <= ln <= end for ln in lines):
            return
        name = _name_of(node) if node.type in _DEFINITIONS else None
        child_hit = False
        for child in node.children:
            before = len(found)
            visit(child, inner)
            child_hit = child_hit or len(found) > before
        if name and not child_hit:
            found.append(name)

    visit(tree.root_node, [])
    return list(dict.fromkeys(found))


# ------------------------------------------------------------------------ what the failing tests reference

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


# ---------------------------------------------------------------------------- quoted error output

_TRACEBACK = re.compile(r"^\s*Traceback \(most recent call last\):")
_EXCEPTION_LINE = re.compile(r"^\s*[A-Za-z_][\w.]*(?::\s.*|:)?\s*$")
#: Lines that are error output wherever they stand.
_OUTPUT_LINES = [
    re.compile(p)
    for p in (
        r"^\s*(?:During handling of the above exception|The above exception was the direct cause)",
        r"^E\s{2,}\S",  # pytest's explanation lines
        r"^>\s+\S",  # pytest's failing-line marker
        r"^\s*\S+\.py:\d+: \w*(?:Error|Exception|Warning)\b",  # pytest: "path.py:3: ValueError"
        r"^\s*\^+\s*$",  # a caret line under a source line
        r"^(?:FAILED|ERROR) \S+::",  # pytest's short summary
        r"^={3,} .* ={3,}\s*$",  # pytest's section headers
        r"^\s*at\s+\S.*\(.*:\d+(?::\d+)?\)\s*$",  # JS / Java frame with its location
        r"^\s*at\s+\S+:\d+:\d+\s*$",  # JS anonymous frame
        r"^\s*at\s+[\w$./<>]+\((?:Native Method|Unknown Source)\)",
        r"^\s*(?:Exception in thread |Caused by: )",
        r"^\s*(?:panic|fatal error): ",
        r"^\s*goroutine \d+ \[",
        r"^\s*\d+:\s+[\w:<>]+::\w",  # a Rust backtrace frame
        r"^\s*at \S+\.rs:\d+:\d+",
        r"^\s*(?:[A-Za-z_]\w*\.)*[A-Za-z_]*(?:Error|Exception)(?::\s.*|:)?\s*$",  # "ValueError: ..."
    )
]
#: Frame lines whose more-indented followers (the source line, carets) are output too.
_FRAME = re.compile(r'^(\s*)(?:File "[^"]*", line \d+|\S+\.py:\d+: in \S+)')
#: Location lines whose following non-blank lines (the source line, carets) are output too.
_LOCATION = re.compile(r"^\s*(?:\S+\.[cm]?[jt]sx?:\d+|thread '[^']*'(?: \(\d+\))? panicked at .*)\s*$")
_GO_LOCATION = re.compile(r"^\s*\S+\.go:\d+(?: \+0x[0-9a-f]+)?\s*$")
_GO_CALL = re.compile(r"^\s*[\w./*()\[\]-]+\(.*\)\s*$")
#: pytest's long failure report: from a ``____ test ____`` header or ``_ _ _`` separator to its summary.
_PYTEST_REPORT = re.compile(r"^(?:_{3,} \S.* _{3,}|(?:_ ){5,}_?)\s*$")
_REPORT_END = re.compile(r"^(?:={3,}|`{3,}|~{3,})")


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def error_output_lines(prompt: str) -> frozenset[int]:
    """The 0-based prompt lines that are quoted error output.

    Recognised (from captured output of the real tools, see tests/fixtures/leak/outputs/): Python
    tracebacks (frames, their source and caret lines, the exception line), pytest failure reports (short
    and long), node's location line and stack frames, Java stack traces, Go panics and their frames, Rust
    panics and backtraces, and ``XxxError: ...`` lines.
    """
    lines = prompt.splitlines()
    out: set[int] = set()
    in_tb = in_report = False
    follow_indent: int | None = None
    follow_block = False
    for i, line in enumerate(lines):
        if follow_indent is not None:
            if line.strip() and _indent(line) > follow_indent:
                out.add(i)
                continue
            follow_indent = None
        if follow_block:
            if line.strip():
                out.add(i)
                continue
            follow_block = False
        if in_report:
            if _REPORT_END.match(line):
                in_report = False
            else:
                out.add(i)
                continue
        if _PYTEST_REPORT.match(line):
            in_report = True
            out.add(i)
            continue
        if _TRACEBACK.match(line):
            in_tb = True
            out.add(i)
            continue
        if in_tb:
            if not line.strip():
                in_tb = False
                continue
            if not (line[:1] in (" ", "\t") or any(p.match(line) for p in _OUTPUT_LINES)):
                in_tb = False
                if _EXCEPTION_LINE.match(line):  # the exception line that ends a traceback
                    out.add(i)
                continue
            out.add(i)
        frame = _FRAME.match(line)
        if frame:
            out.add(i)
            follow_indent = len(frame.group(1))
        elif _LOCATION.match(line):
            out.add(i)
            follow_block = True
        elif _GO_LOCATION.match(line):
            out.add(i)
            if i > 0 and _GO_CALL.match(lines[i - 1]):
                out.add(i - 1)  # a Go frame is the call line above its file:line
        elif any(p.match(line) for p in _OUTPUT_LINES):
            out.add(i)
    return frozenset(out)


# ------------------------------------------------------------------------------- fixed expressions

_TOKEN = re.compile(r"[A-Za-z0-9_]+|[^\sA-Za-z0-9_]")
_SEP = "\x1f"
_EXPRESSIONS = {"call", "subscript", "attribute", "lambda"}


def _tokens(text: str) -> str:
    """Code tokens joined by a separator, so that token sequences compare whatever the spacing."""
    return _SEP + _SEP.join(_TOKEN.findall(text)) + _SEP


def _is_expression(node_type: str) -> bool:
    return node_type in _EXPRESSIONS or node_type.endswith(
        ("_expression", "_operator", "_invocation", "_access")
    )


def fixed_expressions(added: Iterable[str], pre_image: str, ext: str) -> list[str]:
    """Expressions of the ``added`` lines that the pre-image does not hold: what the fix introduces.

    Each added line is parsed alone with the file's grammar (tree-sitter recovers from the partial
    statement); an expression counts when it has at least 3 tokens, one of them an operator or bracket,
    and 5 characters besides spaces.
    """
    parser = _parser(ext)
    if parser is None:
        return []
    before = _tokens(pre_image)
    found: list[str] = []
    for line in added:
        for node in _walk(parser.parse(line.strip().encode("utf-8")).root_node):
            if not _is_expression(node.type) or node.has_error:
                continue
            text = " ".join(_text(node).split())
            toks = _TOKEN.findall(text)
            if (
                len(toks) < 3
                or len(text.replace(" ", "")) < 5
                or all(t[0].isalnum() or t[0] == "_" for t in toks)
                or _tokens(text) in before
            ):
                continue
            found.append(text)
    return list(dict.fromkeys(found))


# ----------------------------------------------------------------------------------------- the screen


def _word(sym: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![A-Za-z0-9_]){re.escape(sym)}(?![A-Za-z0-9_])")


def screen_prompt(task: Task, prompt: str | None = None) -> LeakScreen:
    """Screen a prompt against the task's gold patch: every finding with its level and reason.

    Args:
        task: the task (its gold patch, workspace or context files, hidden tests and F2P ids are used).
        prompt: the prompt to screen; the task's own by default (a gate for generated problem statements
            passes its candidate text here).

    Returns:
        The :class:`LeakScreen`: empty (level ``none``) when the task has no gold patch or no prompt.
    """
    prompt = task.prompt if prompt is None else prompt
    if not task.gold_patch or not prompt:
        return LeakScreen()
    lines = prompt.splitlines()
    output = error_output_lines(prompt)
    squashed = " ".join(prompt.split())
    originals = task.workspace_map() or {f.path: f.content for f in task.context_files}
    entry = f2p_references(task)
    functions, modules = _workspace_shape(task)
    hits: list[LeakHit] = []

    def hit(kind: str, symbol: str, file: str, evidence: str, level: LeakLevel, reason: str) -> None:
        hits.append(
            LeakHit(
                kind=kind,
                symbol=symbol,
                file=file,
                evidence=evidence.strip()[:300],
                level=level,
                reason=reason,
            )
        )

    for change in parse_patch(task.gold_patch):
        source = originals.get(change.path, "")
        for sym in changed_symbols(source, change.path, change.old_lines) if source else []:
            if len(sym) < 3 or (sym.startswith("__") and sym.endswith("__")):
                continue
            pat = _word(sym)
            where = [i for i, pl in enumerate(lines) if pat.search(pl)]
            if not where:
                continue
            prose = [i for i in where if i not in output]
            evidence = lines[(prose or where)[0]]
            if sym in entry:
                hit(
                    "names_symbol",
                    sym,
                    change.path,
                    evidence,
                    LeakLevel.NONE,
                    f"the failing tests reference {sym}: naming it states the symptom, "
                    "not where the fix goes",
                )
            elif functions == [sym]:
                hit(
                    "names_symbol",
                    sym,
                    change.path,
                    evidence,
                    LeakLevel.NONE,
                    f"{sym} is the only function in the workspace: naming it narrows nothing",
                )
            elif len(modules) == 1 and modules[0] == sym:
                hit(
                    "names_symbol",
                    sym,
                    change.path,
                    evidence,
                    LeakLevel.NONE,
                    f"{sym} is the only module the workspace consists of: naming it narrows nothing",
                )
            elif not prose:
                hit(
                    "names_symbol",
                    sym,
                    change.path,
                    evidence,
                    LeakLevel.HINT,
                    f"{sym} appears only in quoted error output, which the failing tests show on the "
                    "buggy code too",
                )
            else:
                hit(
                    "names_symbol",
                    sym,
                    change.path,
                    evidence,
                    LeakLevel.LEAK,
                    f"the gold patch edits {sym} and the failing tests never reference it: naming it "
                    "tells the agent where the fix goes",
                )
        removed = {" ".join(r.split()) for r in change.removed}
        for line in dict.fromkeys(change.removed + change.added):
            body = " ".join(line.split())
            if len(re.sub(r"\W", "", body)) < _MIN_QUOTE or body not in squashed:
                continue
            where = [i for i, pl in enumerate(lines) if body[:20] in " ".join(pl.split())]
            prose = [i for i in where if i not in output]
            evidence = lines[(prose or where)[0]] if where else body
            if body not in removed:
                hit(
                    "quotes_changed_line",
                    body[:200],
                    change.path,
                    evidence,
                    LeakLevel.LEAK,
                    "the prompt quotes a line the gold patch adds: it gives the fix away",
                )
            elif where and not prose:
                hit(
                    "quotes_changed_line",
                    body[:200],
                    change.path,
                    evidence,
                    LeakLevel.HINT,
                    "the prompt quotes the buggy line inside error output, as the buggy code's own "
                    "traceback shows it",
                )
            else:
                hit(
                    "quotes_changed_line",
                    body[:200],
                    change.path,
                    evidence,
                    LeakLevel.LEAK,
                    "the prompt quotes a line the gold patch removes: it points at where the fix goes",
                )
        quoted = {h.symbol for h in hits if h.kind == "quotes_changed_line"}
        line_tokens = [(_tokens(pl), pl) for pl in lines]
        matched = [
            (expr, pl)
            for expr in fixed_expressions(change.added, source, _ext(change.path))
            for toks, pl in line_tokens
            if _tokens(expr) in toks and not any(expr in q for q in quoted)
        ]
        for expr, pl in matched:
            if any(expr != other and _tokens(expr) in _tokens(other) for other, _ in matched):
                continue  # a larger quoted expression holds it
            hit(
                "quotes_fixed_expression",
                expr[:200],
                change.path,
                pl,
                LeakLevel.LEAK,
                "the prompt quotes an expression the gold patch introduces: it gives the fix away",
            )
    level = max((h.level for h in hits), key=lambda lv: lv.rank, default=LeakLevel.NONE)
    return LeakScreen(level=level, hits=hits)
