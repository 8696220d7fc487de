"""What the gold patch edits: its files and lines, and the symbols around them (tree-sitter)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from typing import Any

from ._model import (
    _DEFINITIONS,
    _FUNCTION_VALUES,
    _GRAMMARS,
)


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
