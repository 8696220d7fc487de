"""What the Harbor reader and writer share: names, language and image hints, the sidecar, helpers."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

import pyarrow as pa
from pydantic import BaseModel, ConfigDict, ValidationError

from ...errors import DatasetError
from ...task import (
    EnvSpec,
    FileEntry,
    Task,
    TestSpec,
    VerifierSpec,
)

if sys.version_info >= (3, 11):
    pass
else:  # pragma: no cover - Python 3.10
    pass


Files = dict[str, tuple[bytes, bool]]


"""A task directory in memory: ``{relative path: (content, executable)}``."""


DEFAULT_IMAGES: dict[str, str] = {
    "python": "python:3.11-slim",
    "sql": "python:3.11-slim",
    "javascript": "node:20-slim",
    "typescript": "node:20-slim",
    "java": "eclipse-temurin:17-jdk",
    "go": "golang:1.22",
    "rust": "rust:1-slim",
}


"""Base images of generated Dockerfiles by language (python's for anything else)."""


_APP = "/app"


_PARQUET_COLUMNS_KEY = "harbor_parquet_columns"


_UNRESOLVED_KEY = "harbor_unresolved_copies"


#: A patchbench convention: the reference fix of a Harbor task as a unified diff against /app.
GOLD_PATCH = "solution/gold.patch"


_LANGUAGE_ALIASES = {
    "python": "python",
    "python3": "python",
    "py": "python",
    "javascript": "javascript",
    "js": "javascript",
    "node": "javascript",
    "nodejs": "javascript",
    "typescript": "typescript",
    "ts": "typescript",
    "java": "java",
    "junit": "java",
    "maven": "java",
    "go": "go",
    "golang": "go",
    "rust": "rust",
    "sql": "sql",
    "c": "c",
    "cpp": "cpp",
    "c++": "cpp",
    "ruby": "ruby",
    "php": "php",
    "csharp": "csharp",
    "kotlin": "kotlin",
}


_EXTENSIONS = {
    ".py": "python",
    ".js": "javascript",
    ".mjs": "javascript",
    ".cjs": "javascript",
    ".jsx": "javascript",
    ".ts": "typescript",
    ".tsx": "typescript",
    ".java": "java",
    ".go": "go",
    ".rs": "rust",
    ".sql": "sql",
    ".c": "c",
    ".cc": "cpp",
    ".cpp": "cpp",
    ".rb": "ruby",
    ".php": "php",
    ".cs": "csharp",
    ".kt": "kotlin",
}


_IMAGE_HINTS = (
    ("python", "python"),
    ("node", "javascript"),
    ("temurin", "java"),
    ("openjdk", "java"),
    ("maven", "java"),
    ("gradle", "java"),
    ("golang", "go"),
    ("rust", "rust"),
)


class _Sidecar(BaseModel):
    """``metadata.json["patchbench"]`` of a generated task directory."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    language: str
    test: TestSpec
    env: EnvSpec
    verifier: VerifierSpec | None = None
    fail_to_pass: tuple[str, ...] = ()
    pass_to_pass: tuple[str, ...] = ()
    gold_patch: str | None = None
    buggy_files: tuple[str, ...] = ()
    hidden_tests: tuple[str, ...] = ()
    """Paths under ``tests/`` that are the Task's hidden tests, in order."""
    workspace_order: tuple[str, ...] = ()
    """The workspace paths in the Task's order (the Dockerfile copy gives them sorted)."""
    context_files: Literal["workspace"] | tuple[FileEntry, ...] = ()
    metadata: dict[str, Any] = {}


def _schema_ok(schema: pa.Schema) -> bool:
    names = set(schema.names)
    if not {"path", "task_binary"} <= names:
        return False
    path_type = schema.field("path").type
    blob_type = schema.field("task_binary").type
    return bool(
        (pa.types.is_string(path_type) or pa.types.is_large_string(path_type))
        and (pa.types.is_binary(blob_type) or pa.types.is_large_binary(blob_type))
    )


def _check_unique_ids(tasks: Sequence[Task], path: Path) -> None:
    seen: set[str] = set()
    for task in tasks:
        if task.id in seen:
            raise DatasetError("duplicate task id", source=str(path), row=task.id)
        seen.add(task.id)


def _strip_source(e: DatasetError) -> str:
    """The message of ``e`` without its ``source [row r]: `` prefix (it is re-attached by the caller)."""
    text = str(e)
    if e.source is not None and text.startswith(e.source):
        text = text[len(e.source) :].lstrip()
        text = text.removeprefix(":").lstrip()
    return text


def _brief(e: BaseException) -> str:
    """One line describing ``e`` (pydantic errors as ``loc: msg; ...``)."""
    if isinstance(e, ValidationError):
        parts = []
        for err in e.errors():
            loc = ".".join(str(x) for x in err["loc"])
            parts.append(f"{loc}: {err['msg']}" if loc else str(err["msg"]))
        text = "; ".join(parts)
    else:
        text = str(e) or type(e).__name__
    return " ".join(text.split())[:500]
