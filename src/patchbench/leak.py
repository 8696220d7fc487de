"""The leak screen: does the prompt name what the gold patch changes, or quote its changed lines?

The symbols a gold patch changes are found with a real parser, not a regex: each file the patch touches is
parsed with its tree-sitter grammar (Python, JavaScript, TypeScript, Go, Java, Rust; SQL files count by
their file stem and any view/CTE names), and a symbol is *changed* when a removed line, or the position of
an added line, falls inside its definition; only the innermost definition counts (changing one method
leaves its class's name free to mention as an entry point). The prompt leaks when it names a changed
symbol as a whole word, or quotes a changed line (8+ letters, digits or underscores) verbatim.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from typing import Any

from pydantic import BaseModel, ConfigDict

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


class LeakHit(BaseModel):
    """One leak: what was found and where.

    Attributes:
        kind: ``names_symbol`` or ``quotes_changed_line``.
        symbol: the changed symbol or the quoted line.
        file: the file of the gold patch it comes from.
        evidence: the prompt line that contains it.
    """

    model_config = ConfigDict(frozen=True)

    kind: str
    symbol: str
    file: str
    evidence: str


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


def screen(task: Task) -> list[LeakHit]:
    """Leak hits of the task's prompt against its gold patch (none when there is no gold patch)."""
    if not task.gold_patch or not task.prompt:
        return []
    prompt = task.prompt
    prompt_lines = prompt.splitlines()
    squashed = " ".join(prompt.split())
    originals = task.workspace_map() or {f.path: f.content for f in task.context_files}
    hits: list[LeakHit] = []
    for change in parse_patch(task.gold_patch):
        source = originals.get(change.path, "")
        for sym in changed_symbols(source, change.path, change.old_lines) if source else []:
            if len(sym) < 3 or (sym.startswith("__") and sym.endswith("__")):
                continue
            pat = re.compile(rf"(?<![A-Za-z0-9_]){re.escape(sym)}(?![A-Za-z0-9_])")
            for pl in prompt_lines:
                if pat.search(pl):
                    hits.append(
                        LeakHit(kind="names_symbol", symbol=sym, file=change.path, evidence=pl.strip()[:300])
                    )
                    break
        for line in dict.fromkeys(change.removed + change.added):
            body = " ".join(line.split())
            if len(re.sub(r"\W", "", body)) < _MIN_QUOTE:
                continue
            if body in squashed:
                evidence = next(
                    (pl.strip() for pl in prompt_lines if body[:20] in " ".join(pl.split())), body
                )
                hits.append(
                    LeakHit(
                        kind="quotes_changed_line",
                        symbol=body[:200],
                        file=change.path,
                        evidence=evidence[:300],
                    )
                )
    return hits
