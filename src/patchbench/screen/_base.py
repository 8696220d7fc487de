"""What the screen is given and may do (sizes, grammars, the policy, a changed file), and tree-sitter."""

from __future__ import annotations

import importlib
import logging
from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum
from functools import cache
from typing import Any

log = logging.getLogger("patchbench.screen")


#: Bytes of one file the screen looks at; a larger file gets an ``unscreened`` finding.
MAX_BYTES = 2 * 1024 * 1024


#: Characters of evidence kept per finding.
EVIDENCE_CHARS = 200


#: File extension → (language, grammar module, language function).
GRAMMARS: dict[str, tuple[str, str, str]] = {
    ".py": ("python", "tree_sitter_python", "language"),
    ".js": ("javascript", "tree_sitter_javascript", "language"),
    ".mjs": ("javascript", "tree_sitter_javascript", "language"),
    ".cjs": ("javascript", "tree_sitter_javascript", "language"),
    ".jsx": ("javascript", "tree_sitter_javascript", "language"),
    ".ts": ("typescript", "tree_sitter_typescript", "language_typescript"),
    ".mts": ("typescript", "tree_sitter_typescript", "language_typescript"),
    ".cts": ("typescript", "tree_sitter_typescript", "language_typescript"),
    ".tsx": ("tsx", "tree_sitter_typescript", "language_tsx"),
    ".go": ("go", "tree_sitter_go", "language"),
    ".java": ("java", "tree_sitter_java", "language"),
    ".rs": ("rust", "tree_sitter_rust", "language"),
}


#: The extensions the screen parses by name.
SCREENED_EXTENSIONS = frozenset(GRAMMARS)

#: Extensions of data and documents, never read as code. Any other file the candidate wrote (``.cfg``,
#: ``.conf``, ``.in``...) is screened as the task's language when it parses as that language without an
#: error: code loaded by ``exec``, ``createRequire`` or ``include!`` (round twenty-seven).
DATA_EXTENSIONS = frozenset(
    {
        ".md", ".rst", ".txt", ".json", ".jsonc", ".json5", ".jsonl", ".yaml", ".yml", ".toml", ".lock",
        ".csv", ".tsv", ".html", ".htm", ".css", ".svg", ".xml", ".ini", ".properties", ".sum", ".mod",
        ".gradle", ".sql", ".sh", ".bat", ".ps1", ".png", ".jpg", ".jpeg", ".gif", ".ico", ".pdf", ".zip",
        ".gz", ".tar", ".jar", ".class", ".so", ".o", ".a", ".wasm", ".map", ".snap", ".out", ".log",
    }
)  # fmt: skip

#: The grammar a task's language is read with, for files whose extension names none.
TASK_GRAMMAR = {
    "python": "python",
    "javascript": "javascript",
    "typescript": "typescript",
    "go": "go",
    "java": "java",
    "rust": "rust",
}


PY = frozenset({"python"})


JS = frozenset({"javascript", "typescript", "tsx"})


GO = frozenset({"go"})


JAVA = frozenset({"java"})


RUST = frozenset({"rust"})


ALL = PY | JS | GO | JAVA | RUST


class SuspiciousPolicy(str, Enum):
    """What a run does with the screen's findings (``reject`` is the default)."""

    REPORT = "report"
    """Record them in ``Verdict.suspicious``; the status is the tests' alone."""
    REJECT = "reject"
    """Also turn a ``resolved`` verdict with a finding into ``unresolved``, naming the findings; except
    for the task's own gold patch, and for the codes the gold patch's change shows too (see
    :func:`patchbench.screen.enforce`)."""


@dataclass(frozen=True)
class ChangedFile:
    """One file the candidate added or modified.

    Attributes:
        path: workspace-relative POSIX path.
        text: its new content (decoded; at most :data:`MAX_BYTES` of it).
        before: its original content, None for a file the candidate added.
        truncated: the file was longer than what ``text`` holds.
    """

    path: str
    text: str
    before: str | None = None
    truncated: bool = False


Captures = Mapping[str, list[Any]]


_PY_FRAME_NAMES = frozenset(
    {
        "_getframe",
        "_current_frames",
        "currentframe",
        "getouterframes",
        "getinnerframes",
        "f_back",
        "f_locals",
        "f_globals",
        "f_code",
        "tb_frame",
    }
)


def _family(language: str) -> str:
    return "js" if language in JS else language


def _re(*names: str) -> str:
    """A ``#match?`` pattern for exactly one of ``names``."""
    return "^(" + "|".join(names) + ")$"


@cache
def _language(language: str) -> Any:
    spec = next((s for s in GRAMMARS.values() if s[0] == language), None)
    if spec is None:
        return None
    import tree_sitter

    try:
        module = importlib.import_module(spec[1])
    except ModuleNotFoundError:
        return None
    return tree_sitter.Language(getattr(module, spec[2])())


@cache
def _parser(language: str) -> Any:
    import tree_sitter

    lang = _language(language)
    return None if lang is None else tree_sitter.Parser(lang)


@cache
def _query(language: str, source: str) -> Any:
    import tree_sitter

    return tree_sitter.Query(_language(language), source)


def _matches(language: str, source: str, root: Any, span: tuple[int, int] | None = None) -> list[Captures]:
    """The matches of a query under ``root`` (within the byte ``span``): one capture dict each."""
    return [caps for _index, caps in _raw_matches(_query(language, source), root, span)]


def _raw_matches(query: Any, root: Any, span: tuple[int, int] | None) -> list[tuple[int, Captures]]:
    """``(pattern index, captures)`` of every match (tree-sitter 0.25+, and older without a span)."""
    import tree_sitter

    cursor_type = getattr(tree_sitter, "QueryCursor", None)
    if cursor_type is None:  # pragma: no cover - tree-sitter < 0.25
        raw = query.matches(root)
    else:
        cursor = cursor_type(query)
        if span is not None:
            cursor.set_byte_range(*span)
        raw = cursor.matches(root)
    return [(i, {k: (v if isinstance(v, list) else [v]) for k, v in caps.items()}) for i, caps in raw]
