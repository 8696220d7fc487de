"""The Task model: everything a harness needs to run one bug-fix task, whatever format it came from.

A :class:`Task` is frozen. It keeps what the agent sees (``prompt``, ``context_files``) apart from what the
harness runs (``workspace``, ``hidden_tests``, ``test``, ``env``, ``fail_to_pass``/``pass_to_pass``,
``gold_patch``, ``verifier``). Every field of a source row that has no home here is kept verbatim in
``metadata`` so that writers can put it back: nothing is silently dropped.
"""

from __future__ import annotations

import base64
import math
import posixpath
import shlex
from enum import Enum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator


def check_relpath(path: str) -> str:
    """Validate a workspace-relative POSIX path and return it normalised.

    Raises:
        ValueError: the path is empty, absolute, or climbs out with ``..``.
    """
    if not path or "\x00" in path:
        raise ValueError(f"invalid path {path!r}")
    p = path.replace("\\", "/")
    if p.startswith("/") or (len(p) > 1 and p[1] == ":"):
        raise ValueError(f"absolute path not allowed: {path!r}")
    norm = posixpath.normpath(p)
    if norm == "." or norm.startswith("../") or norm == "..":
        raise ValueError(f"path leaves the workspace: {path!r}")
    return norm


#: The largest test time limit a task may ask for (24 hours). A larger one is a malformed row, not a
#: request to run without a limit: ``1e300`` would overflow the kill timer and leave the run unbounded.
MAX_TIME_LIMIT_S = 86_400.0


def check_time_limit(v: float) -> float:
    """Validate a time limit in seconds: finite, positive, at most :data:`MAX_TIME_LIMIT_S`.

    Raises:
        ValueError: saying which of the three it is not.
    """
    if not math.isfinite(v) or v <= 0:
        raise ValueError(f"time_limit_s must be a positive, finite number of seconds, got {v!r}")
    if v > MAX_TIME_LIMIT_S:
        raise ValueError(f"time_limit_s {v:g} is over the maximum of {MAX_TIME_LIMIT_S:g} s")
    return v


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class FileEntry(_Frozen):
    """One file: a relative POSIX path and its content.

    ``content`` is the text itself, or base64 when ``encoding`` is ``"base64"`` (binary files, kept only
    so that directory formats round-trip byte for byte).
    """

    path: str
    content: str
    executable: bool = False
    encoding: Literal["text", "base64"] = "text"

    def data(self) -> bytes:
        """The file's bytes."""
        if self.encoding == "base64":
            return base64.b64decode(self.content)
        return self.content.encode("utf-8")

    @classmethod
    def from_bytes(cls, path: str, data: bytes, *, executable: bool = False) -> FileEntry:
        """A FileEntry for ``data``: text when it is UTF-8, base64 otherwise."""
        try:
            return cls(path=path, content=data.decode("utf-8"), executable=executable)
        except UnicodeDecodeError:
            return cls(
                path=path,
                content=base64.b64encode(data).decode("ascii"),
                executable=executable,
                encoding="base64",
            )

    @field_validator("path")
    @classmethod
    def _path_ok(cls, v: str) -> str:
        return check_relpath(v)


class ResultProtocol(str, Enum):
    """How a test command reports per-test results (each value names a registered runner)."""

    AUTO = "auto"
    """Pick from the commands: the first runner that claims one (pytest, go test, cargo test, node --test,
    Maven/Jest/Vitest/Mocha), TAP otherwise."""
    PYTEST = "pytest"
    """pytest, read through the JUnit XML report it writes outside the workspace."""
    TAP = "tap"
    """Test Anything Protocol (12/13/14) on standard output."""
    JUNIT = "junit"
    """JUnit XML report files (Maven Surefire, the JUnit console launcher)."""
    GO = "go-test"
    """``go test -json`` events on standard output."""
    CARGO = "cargo-test"
    """``cargo test`` libtest output (JSON events via RUSTC_BOOTSTRAP=1, or the text form)."""
    NODE = "node-test"
    """node's built-in test runner (``node --test``), read through its reporter."""


class TestCommand(_Frozen):
    """One test command: an argv (run directly) or a shell string (run with ``bash -c``)."""

    __test__ = False  # not a pytest test class, despite the name

    argv: tuple[str, ...] | None = None
    shell: str | None = None

    @model_validator(mode="after")
    def _one_form(self) -> TestCommand:
        if (self.argv is None) == (self.shell is None):
            raise ValueError("a test command is either an argv or a shell string, exactly one")
        if self.argv is not None and not self.argv:
            raise ValueError("empty argv")
        if self.shell is not None and not self.shell.strip():
            raise ValueError("empty shell command")
        return self

    def to_argv(self) -> list[str]:
        """The argv to execute: the argv itself, or ``bash -c SHELL``."""
        if self.argv is not None:
            return list(self.argv)
        assert self.shell is not None
        return ["bash", "-c", self.shell]

    def display(self) -> str:
        """A human-readable one-liner."""
        return self.shell if self.shell is not None else shlex.join(self.argv or ())


class TestSpec(_Frozen):
    """How the hidden suite is run and read."""

    __test__ = False  # not a pytest test class, despite the name

    commands: tuple[TestCommand, ...]
    protocol: ResultProtocol = ResultProtocol.AUTO
    time_limit_s: float = 600.0
    workdir: str = "."
    """Directory (workspace-relative) the commands run in."""

    @field_validator("commands")
    @classmethod
    def _non_empty(cls, v: tuple[TestCommand, ...]) -> tuple[TestCommand, ...]:
        if not v:
            raise ValueError("a task needs at least one test command")
        return v

    @field_validator("time_limit_s")
    @classmethod
    def _positive(cls, v: float) -> float:
        return check_time_limit(v)


class EnvSpec(_Frozen):
    """What the test run needs installed. Prepared once, with network, then cached and used offline."""

    language: str = "python"
    image: str | None = None
    """The runtime image the source named (e.g. ``python:3.11-slim``); mapped to a local toolchain."""
    system_deps: tuple[str, ...] = ()
    """System packages the source asks for (Debian names); recorded, not installed: a native run uses the
    host's packages."""
    python_requirements: tuple[str, ...] = ()
    """pip requirement strings installed with uv into the cached environment."""
    setup_cmds: tuple[str, ...] = ()
    """Trusted setup commands (shell strings) run in the setup phase."""


class VerifierKind(str, Enum):
    """Who decides the reward."""

    TESTS = "tests"
    """patchbench runs ``test.commands`` and grades per test by F2P/P2P."""
    SCRIPT = "script"
    """A Harbor-style script (``tests/test.sh``) writes ``reward.txt``/``reward.json``."""


class VerifierSpec(_Frozen):
    """A Harbor-style script verifier: the workspace is ``app_dir``, tests are uploaded to ``tests_dir``."""

    kind: VerifierKind = VerifierKind.TESTS
    script: str = "tests/test.sh"
    app_dir: str = "/app"
    tests_dir: str = "/tests"
    logs_dir: str = "/logs/verifier"

    @model_validator(mode="before")
    @classmethod
    def _legacy_timeout(cls, data: Any) -> Any:
        # Older versions kept a second time limit here; a task has one: ``TestSpec.time_limit_s`` (the
        # Harbor reader puts ``[verifier] timeout_sec`` there). Rows they wrote carry both, equal.
        if isinstance(data, dict) and "timeout_s" in data:
            data = {k: v for k, v in data.items() if k != "timeout_s"}
        return data


class Repository(_Frozen):
    """A workspace that is a whole repository at a commit (PatchBench rows), not a set of files.

    Attributes:
        repo: ``owner/name`` (a GitHub-style slug) or any name the repository cache knows.
        base_commit: the buggy commit; the harness runs the full tree at this commit.
    """

    repo: str
    base_commit: str

    @field_validator("repo")
    @classmethod
    def _repo_ok(cls, v: str) -> str:
        v = v.strip().removeprefix("https://github.com/").removesuffix(".git").strip("/")
        if not v or ".." in v.split("/") or v.startswith("/"):
            raise ValueError(f"invalid repository name {v!r}")
        return v

    @field_validator("base_commit")
    @classmethod
    def _commit_ok(cls, v: str) -> str:
        v = v.strip()
        # A commit id (or any revision git accepts that cannot be read as an option or a range).
        if not v or v.startswith("-") or ".." in v or any(c.isspace() or c in "~^:?*[\\" for c in v):
            raise ValueError(f"base_commit must be a commit id, got {v!r}")
        return v.lower() if all(c in "0123456789abcdefABCDEF" for c in v) else v


class Task(_Frozen):
    """One bug-fix task.

    Attributes:
        id: stable identifier (``task_id``, ``id`` or Harbor ``path`` in the sources).
        prompt: the agent-facing problem statement.
        language: python, javascript, typescript, go, java, rust, sql...
        workspace: the buggy files the candidate edits and the tests run against (empty when the workspace
            is a repository).
        repository: set when the workspace is a whole repository at a commit (PatchBench rows); then
            ``context_files`` is only the slice the agent is shown.
        hidden_tests: test files injected after the candidate, overwriting anything at those paths.
        test: the test commands, their result protocol and time limit.
        env: what the test run needs installed.
        fail_to_pass: test ids that must fail before the fix and pass after.
        pass_to_pass: test ids that must keep passing.
        gold_patch: the reference fix, a ``patch -p1`` unified diff (harness-only).
        verifier: a Harbor-style script verifier, when the task has one.
        context_files: what the agent is shown beyond the prompt (PatchBench slices).
        buggy_files: paths the fix is expected to touch.
        metadata: every other field of the source row, verbatim (title, category, repo, base_commit...).
        source_format: the format the task was read from.
        extra_files: files of the source task directory that have no other home (Harbor dirs), kept for
            writing back.
    """

    id: str
    prompt: str = ""
    language: str = "python"
    workspace: tuple[FileEntry, ...] = ()
    repository: Repository | None = None
    hidden_tests: tuple[FileEntry, ...] = ()
    test: TestSpec
    env: EnvSpec = Field(default_factory=EnvSpec)
    fail_to_pass: tuple[str, ...] = ()
    pass_to_pass: tuple[str, ...] = ()
    gold_patch: str | None = None
    verifier: VerifierSpec | None = None
    context_files: tuple[FileEntry, ...] = ()
    buggy_files: tuple[str, ...] = ()
    metadata: dict[str, Any] = Field(default_factory=dict)
    source_format: str = "unknown"
    extra_files: tuple[FileEntry, ...] = ()

    @field_validator("id")
    @classmethod
    def _id_ok(cls, v: str) -> str:
        if not v or not v.strip():
            raise ValueError("task id is empty")
        if "/" in v or "\x00" in v or v in {".", ".."}:
            raise ValueError(f"task id {v!r} must not contain '/'")
        return v

    @model_validator(mode="after")
    def _unique_paths(self) -> Task:
        for name in ("workspace", "hidden_tests"):
            seen: set[str] = set()
            for f in getattr(self, name):
                if f.path in seen:
                    raise ValueError(f"{name}: duplicate path {f.path!r}")
                seen.add(f.path)
        return self

    def workspace_map(self) -> dict[str, str]:
        """The workspace as ``{path: content}``."""
        return {f.path: f.content for f in self.workspace}

    @property
    def title(self) -> str:
        """The task's one-line title (from metadata), or its id."""
        t = self.metadata.get("title")
        return str(t) if t else self.id
