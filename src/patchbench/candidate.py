"""Candidates: what is graded. A unified diff, a set of files, an edited directory, ``gold``, ``empty``,
``wipe`` or ``solution``."""

from __future__ import annotations

import os
from enum import Enum
from pathlib import Path

from pydantic import BaseModel, ConfigDict, field_validator

from .errors import PatchError
from .task import check_relpath


class CandidateKind(str, Enum):
    """What a candidate is."""

    DIFF = "diff"
    """A unified diff (``a/`` ``b/`` prefixes, applied with -p1)."""
    FILES = "files"
    """Files to write over the workspace (``None`` content deletes a file)."""
    DIRECTORY = "directory"
    """The final state of the workspace: its files are written, and every file of the task's workspace
    (a repository task's context files) it lacks is deleted, resolved per task when the candidate is
    applied, so one candidate serves a batch."""
    GOLD = "gold"
    """The task's own gold patch."""
    EMPTY = "empty"
    """No change at all: the buggy workspace as given."""
    WIPE = "wipe"
    """Every workspace file removed (the "empty workspace" probe)."""
    SOLUTION = "solution"
    """The task's reference solution script (Harbor ``solution/solve.sh``), run in the sandbox before the
    verifier as Harbor's oracle agent runs it; script-verified tasks only."""


class Candidate(BaseModel):
    """A candidate solution.

    Build one with :meth:`diff`, :meth:`files`, :meth:`directory`, :meth:`gold`, :meth:`empty`,
    :meth:`wipe` or :meth:`solution`.
    """

    model_config = ConfigDict(frozen=True)

    kind: CandidateKind
    patch: str | None = None
    file_map: dict[str, str | None] | None = None
    label: str = ""

    @field_validator("file_map")
    @classmethod
    def _paths_ok(cls, v: dict[str, str | None] | None) -> dict[str, str | None] | None:
        if v is None:
            return v
        out: dict[str, str | None] = {}
        for k, content in v.items():
            try:
                out[check_relpath(k)] = content
            except ValueError as e:
                raise ValueError(f"candidate file {k!r}: {e}") from None
        return out

    @property
    def name(self) -> str:
        """A short label for tables and logs."""
        return self.label or self.kind.value

    @classmethod
    def diff(cls, patch: str, label: str = "") -> Candidate:
        """A unified diff."""
        return cls(kind=CandidateKind.DIFF, patch=patch, label=label)

    @classmethod
    def from_patch_file(cls, path: str | Path) -> Candidate:
        """A unified diff read from a file.

        Raises:
            PatchError: the file cannot be read as text.
        """
        p = Path(path)
        try:
            return cls.diff(p.read_text(encoding="utf-8"), label=p.name)
        except (OSError, UnicodeDecodeError) as e:
            raise PatchError(f"{p}: cannot read patch ({e})") from e

    @classmethod
    def files(cls, files: dict[str, str | None], label: str = "") -> Candidate:
        """Files written over the workspace; a ``None`` value deletes that file."""
        for k in files:
            try:
                check_relpath(k)
            except ValueError as e:
                raise PatchError(f"candidate file {k!r}: {e}") from None
        return cls(kind=CandidateKind.FILES, file_map=dict(files), label=label)

    @classmethod
    def directory(cls, root: str | Path, workspace_paths: list[str] | None = None) -> Candidate:
        """The final state of the workspace, as an edited directory.

        Every file in ``root`` is written. Without ``workspace_paths`` the candidate is of kind
        :attr:`CandidateKind.DIRECTORY`: every file of the task's workspace (a repository task's context
        files) missing from ``root`` is deleted when it is applied, so one candidate runs on a whole
        batch. With ``workspace_paths`` it is a plain :attr:`CandidateKind.FILES` candidate deleting
        exactly those paths that ``root`` lacks. ``.git`` is ignored. Symlinks are refused.

        Raises:
            PatchError: ``root`` is not a directory, holds a symlink, or a non-UTF-8 file.
        """
        base = Path(root)
        if not base.is_dir():
            raise PatchError(f"{base}: not a directory")
        found: dict[str, str | None] = {}
        for dirpath, dirnames, filenames in os.walk(base):
            dirnames[:] = [d for d in dirnames if d != ".git"]
            for name in filenames + [d for d in dirnames if (Path(dirpath) / d).is_symlink()]:
                p = Path(dirpath) / name
                rel = p.relative_to(base).as_posix()
                if p.is_symlink():
                    raise PatchError(f"{p}: symlinks are not accepted in a candidate directory")
                try:
                    found[rel] = p.read_text(encoding="utf-8")
                except UnicodeDecodeError:
                    raise PatchError(f"{p}: not a UTF-8 text file") from None
        if workspace_paths is None:
            return cls(kind=CandidateKind.DIRECTORY, file_map=found, label=base.name)
        for rel in workspace_paths:
            found.setdefault(rel, None)
        return cls.files(found, label=base.name)

    @classmethod
    def gold(cls) -> Candidate:
        """The task's gold patch."""
        return cls(kind=CandidateKind.GOLD)

    @classmethod
    def empty(cls) -> Candidate:
        """No change: the buggy workspace as given."""
        return cls(kind=CandidateKind.EMPTY)

    @classmethod
    def wipe(cls) -> Candidate:
        """Every workspace file removed."""
        return cls(kind=CandidateKind.WIPE)

    @classmethod
    def solution(cls) -> Candidate:
        """The task's ``solution/solve.sh``, run in the task's image (Harbor's oracle)."""
        return cls(kind=CandidateKind.SOLUTION)
