"""Harbor task directories, and the ``{path, task_binary}`` parquet that packs them (seeds 000 and 003).

A Harbor task directory::

    task.toml               configuration ([verifier] timeout_sec, [metadata] ...)
    instruction.md          the agent-facing prompt
    metadata.json           optional, free-form JSON object
    environment/Dockerfile  builds the image; the workspace is its final WORKDIR (else /app)
    tests/test.sh           the verifier, uploaded with the rest of tests/ to /tests after the agent ran;
                            it writes /logs/verifier/reward.txt

Reading (:class:`HarborDirFormat` for a task directory or a directory of them, :class:`HarborParquetFormat`
for the parquet file, whose ``task_binary`` tarballs go through :func:`~._tar.read_tar_gz`):

* ``id``: the directory name (the ``path`` column); ``prompt``: instruction.md;
* ``extra_files``: every file of the task directory, binary ones base64-encoded and executable bits kept,
  so writing the Task back reproduces the directory byte for byte (empty directories excepted);
* ``hidden_tests``: the files under ``tests/``, paths relative to ``tests/`` (they are uploaded to /tests);
* ``verifier``: ``VerifierSpec(kind=SCRIPT, script="tests/test.sh")``; ``test``: ``bash /tests/test.sh``
  with ``[verifier] timeout_sec`` as the task's one time limit;
* ``workspace``: the files the Dockerfile's final stage COPYs or ADDs (from ``environment/``, the build
  context) under the workspace directory, paths relative to it. The workspace directory is the final
  ``WORKDIR`` when a native run can lay it out (not under a system directory such as /usr or /etc),
  else /app; it is the verifier's ``app_dir``. The Dockerfile is read by :mod:`._dockerfile` (several
  sources, directory sources, ``*``/``?`` globs, ``WORKDIR`` for relative destinations, ``ARG``/``ENV``
  variables, ``--chown``/``--chmod`` flags); what cannot be resolved (``--from``, heredocs, URLs,
  archives ADD would unpack, missing sources) is listed, line by line, in
  ``metadata["harbor_unresolved_copies"]``. ``.dockerignore`` is not applied. The files it puts
  elsewhere (``/solution``, ``/data``...) are laid out by the harness at run time (see
  :mod:`patchbench.verifiers.image`);
* ``env``: the final ``FROM`` image, packages from ``apt-get install`` and ``pip install`` in ``RUN`` lines,
  then the packages ``tests/test.sh`` runs through ``uvx`` (``--with`` values and the tool) unless the
  Dockerfile already names them;
  its language is the task's when patchbench has an environment for it, else the tests' (a C project
  whose ``tests/`` are pytest files gets Python), else python;
* ``metadata``: metadata.json's keys (when it is a JSON object) plus ``"task_toml"``, the parsed task.toml;
* ``language``: a ``language`` key or a language tag in task.toml ``[metadata]`` or metadata.json, else the
  most common workspace file extension, else the base image, else the test files' extensions, else python.

* ``gold_patch``: ``solution/gold.patch`` when the directory has one (a unified diff against /app; a
  patchbench convention beside Harbor's ``solution/solve.sh``, so ``--gold`` can run).

A task directory without task.toml, tests/test.sh or instruction.md is a row error.

Writing: a Task that has ``extra_files`` (it came from Harbor) is written as exactly those files; they are
authoritative, so edits to its other fields are not written unless ``extra_files`` is emptied first. Any
other Task gets a generated directory: task.toml (``version``, string metadata and a language tag under
``[metadata]``, ``[verifier] timeout_sec``; a ``task_toml`` dict in metadata is written instead when
there is one), instruction.md, ``environment/Dockerfile`` (the task's image or a python/node/temurin/...
base by language, its system packages and requirements, ``WORKDIR /app``, ``COPY app/ /app/``, the setup
commands), ``environment/app/<workspace>``, ``tests/<hidden tests>`` and a default-fail ``tests/test.sh``
(writes 0 first, copies the hidden tests into /app, runs every test command from /app with ``pipefail``
and writes 1 only when all of them exit 0; it cannot tell "zero tests ran" from a pass, so commands should
fail on an empty run, as pytest does). A Task whose verifier is already ``tests/test.sh`` among its hidden
tests (a Harbor task that went through another format) keeps its own script instead; any other hidden
test at ``test.sh`` is an error, since it would replace the verifier.

The generated ``metadata.json`` holds ``{"patchbench": {...}}``: the Task fields Harbor has no place for
(language, test commands and spec, env, verifier, fail_to_pass, pass_to_pass, gold_patch, buggy_files,
context files, which tests/ files are hidden tests, JSON-serialisable metadata). The reader restores them
from that key, so HardBug/PatchBench -> Harbor -> Task keeps its F2P/P2P, gold patch and test commands.
metadata.json is harness-side: the Dockerfile copies only ``app/`` into the image, so the agent never sees
the gold patch.
"""

from __future__ import annotations

import json
import os
import posixpath
import re
import shlex
import shutil
import stat
import sys
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

import pyarrow as pa
import pyarrow.parquet as pq
import tomli_w
from pydantic import BaseModel, ConfigDict, ValidationError

from ..envs import ENV_CLASSES
from ..errors import DatasetError
from ..task import (
    EnvSpec,
    FileEntry,
    Task,
    TestCommand,
    TestSpec,
    VerifierKind,
    VerifierSpec,
    check_relpath,
)
from ._base import Format, Loaded
from ._dockerfile import ImageSpec, uvx_packages, workspace_dir
from ._dockerfile import parse as parse_dockerfile
from ._tar import pack_tar_gz, read_tar_gz

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

__all__ = [
    "DEFAULT_IMAGES",
    "HarborDirFormat",
    "HarborParquetFormat",
    "task_from_files",
    "task_to_files",
]

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


# ----------------------------------------------------------------------------------------------- formats


class HarborDirFormat(Format):
    """One Harbor task directory, or a directory whose immediate subdirectories are task directories."""

    name = "harbor-dir"
    description = "Harbor task directories (task.toml, instruction.md, environment/, tests/test.sh)"

    def detect(self, path: Path) -> bool:
        """True when ``path`` is a task directory or holds one directly."""
        try:
            if not path.is_dir():
                return False
            if (path / "task.toml").is_file():
                return True
            with os.scandir(path) as entries:
                return any(
                    e.is_dir(follow_symlinks=False) and os.path.isfile(os.path.join(e.path, "task.toml"))
                    for e in entries
                )
        except Exception:  # detection must never raise, whatever the path holds
            return False

    def read(self, path: Path) -> Loaded:
        """Read one task directory or every task subdirectory (hidden ones skipped), sorted by name.

        Raises:
            DatasetError: ``path`` is not a directory, or holds no subdirectory at all.
        """
        if not path.is_dir():
            raise DatasetError("not a directory", source=str(path))
        loaded = Loaded(format=self.name, source=str(path))
        if _is_single_task_dir(path):
            dirs = [path]
        else:
            dirs = sorted(
                (p for p in path.iterdir() if p.is_dir() and not p.name.startswith(".")),
                key=lambda p: p.name,
            )
            if not dirs:
                raise DatasetError("no Harbor task directories", source=str(path))
        for task_dir in dirs:
            try:
                files = _read_task_dir(task_dir, source=str(path), row=task_dir.name)
                loaded.tasks.append(
                    task_from_files(task_dir.name, files, source=str(path), row=task_dir.name)
                )
            except DatasetError as e:
                loaded.errors.append(e)
        return loaded

    def write(self, tasks: Sequence[Task], path: Path) -> None:
        """Write each task to ``path/<task.id>/``, replacing a previous directory of that name.

        Raises:
            DatasetError: two tasks share an id, ``path/<id>`` is a file or a symlink, or a task cannot
                be expressed as a Harbor directory (see :func:`task_to_files`).
        """
        _check_unique_ids(tasks, path)
        rendered = [(task, task_to_files(task)) for task in tasks]
        path.mkdir(parents=True, exist_ok=True)
        for task, files in rendered:
            target = path / task.id
            if target.is_symlink() or (target.exists() and not target.is_dir()):
                raise DatasetError("exists and is not a directory", source=str(target), row=task.id)
            if target.exists():
                shutil.rmtree(target)  # the writer owns <out>/<id>: stale files would break byte-identity
            for rel, (content, executable) in sorted(files.items()):
                dest = target / check_relpath(rel)
                dest.parent.mkdir(parents=True, exist_ok=True)
                dest.write_bytes(content)
                dest.chmod(0o755 if executable else 0o644)


class HarborParquetFormat(Format):
    """A parquet file of ``path`` (task id) and ``task_binary`` (gzipped tar of the task directory)."""

    name = "harbor-parquet"
    description = "Harbor task directories packed as parquet rows {path, task_binary}"

    def detect(self, path: Path) -> bool:
        """True when ``path`` is a parquet file with a string ``path`` and a binary ``task_binary`` column."""
        try:
            if not path.is_file() or path.suffix.lower() != ".parquet":
                return False
            schema = pq.read_schema(path)
            return _schema_ok(schema)
        except Exception:  # detection must never raise, whatever the file holds
            return False

    def read(self, path: Path) -> Loaded:
        """Read every row; an unsafe or corrupt tarball is a row error naming the row's ``path``.

        Columns beyond ``path`` and ``task_binary`` are kept in ``metadata["harbor_parquet_columns"]`` and
        written back by :meth:`write`.

        Raises:
            DatasetError: the file is not readable parquet or lacks the two columns.
        """
        try:
            parquet = pq.ParquetFile(path)
            schema = parquet.schema_arrow
        except (OSError, pa.ArrowException) as e:
            raise DatasetError(f"not a readable parquet file ({_brief(e)})", source=str(path)) from e
        if not _schema_ok(schema):
            raise DatasetError(
                "a string 'path' and a binary 'task_binary' column are required "
                f"(columns: {', '.join(schema.names)})",
                source=str(path),
            )
        loaded = Loaded(format=self.name, source=str(path))
        seen: set[str] = set()
        index = -1
        try:
            for batch in parquet.iter_batches(batch_size=64):
                for row in batch.to_pylist():
                    index += 1
                    self._read_row(row, index, str(path), seen, loaded)
        except (OSError, pa.ArrowException) as e:
            raise DatasetError(
                f"parquet data unreadable at row {index + 1} ({_brief(e)})", source=str(path)
            ) from e
        return loaded

    @staticmethod
    def _read_row(row: dict[str, Any], index: int, source: str, seen: set[str], loaded: Loaded) -> None:
        task_id = row.get("path")
        if not isinstance(task_id, str) or not task_id.strip():
            loaded.errors.append(DatasetError("row has no path", source=source, row=index))
            return
        if task_id in seen:
            loaded.errors.append(DatasetError("duplicate path", source=source, row=task_id))
            return
        seen.add(task_id)
        blob = row.get("task_binary")
        if not isinstance(blob, bytes):
            loaded.errors.append(DatasetError("task_binary is empty", source=source, row=task_id))
            return
        extra = {k: v for k, v in row.items() if k not in ("path", "task_binary")}
        try:
            try:
                files = read_tar_gz(blob, source=source)
            except DatasetError as e:
                raise DatasetError(f"task_binary: {_strip_source(e)}", source=source, row=task_id) from e
            task = task_from_files(task_id, files, source=source, row=task_id)
        except DatasetError as e:
            loaded.errors.append(e)
            return
        if extra:
            task = task.model_copy(update={"metadata": {**task.metadata, _PARQUET_COLUMNS_KEY: extra}})
        loaded.tasks.append(task)

    def write(self, tasks: Sequence[Task], path: Path) -> None:
        """Write one ``{path, task_binary}`` row per task (``path`` = task id), plus columns read earlier.

        Raises:
            DatasetError: two tasks share an id, a task cannot be expressed as a Harbor directory, or the
                kept extra columns have values of incompatible types.
        """
        _check_unique_ids(tasks, path)
        paths: list[str] = []
        blobs: list[bytes] = []
        extras: list[dict[str, Any]] = []
        for task in tasks:
            paths.append(task.id)
            blobs.append(pack_tar_gz(task_to_files(task)))
            kept = task.metadata.get(_PARQUET_COLUMNS_KEY)
            extras.append(kept if isinstance(kept, dict) else {})
        columns: dict[str, pa.Array] = {
            "path": pa.array(paths, type=pa.string()),
            "task_binary": pa.array(blobs, type=pa.binary()),
        }
        names = [n for n in dict.fromkeys(k for e in extras for k in e) if n not in columns]
        for name in names:
            try:
                columns[name] = pa.array([e.get(name) for e in extras])
            except (pa.ArrowException, TypeError, ValueError) as e:
                raise DatasetError(
                    f"kept column {name!r} has mixed types ({_brief(e)})", source=str(path)
                ) from e
        path.parent.mkdir(parents=True, exist_ok=True)
        pq.write_table(pa.table(columns), path)


# ------------------------------------------------------------------------------------------ Task <-> files


def task_from_files(task_id: str, files: Mapping[str, tuple[bytes, bool]], *, source: str, row: str) -> Task:
    """One Task from a task directory held in memory (see the module docstring for the mapping).

    Args:
        task_id: the directory name or ``path`` column.
        files: ``{relative path: (content, executable)}``.
        source: the dataset path, for error messages.
        row: the row label (task id) for error messages.

    Raises:
        DatasetError: task.toml, tests/test.sh or instruction.md is missing or unreadable, or the task is
            otherwise invalid.
    """

    def bad(message: str) -> DatasetError:
        return DatasetError(message, source=source, row=row)

    for required in ("task.toml", "tests/test.sh", "instruction.md"):
        if required not in files:
            raise bad(f"no {required}")
    try:
        task_toml = tomllib.loads(files["task.toml"][0].decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as e:
        raise bad(f"task.toml: {_brief(e)}") from e
    try:
        prompt = files["instruction.md"][0].decode("utf-8")
    except UnicodeDecodeError as e:
        raise bad("instruction.md is not UTF-8") from e
    meta_json: dict[str, Any] = {}
    if "metadata.json" in files:
        try:
            parsed = json.loads(files["metadata.json"][0].decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError):
            parsed = None  # still kept verbatim in extra_files; only its keys are not merged
        if isinstance(parsed, dict):
            meta_json = parsed

    extra_files = tuple(
        FileEntry.from_bytes(p, content, executable=executable)
        for p, (content, executable) in sorted(files.items())
    )
    tests = {p[len("tests/") :]: v for p, v in files.items() if p.startswith("tests/")}
    docker, app_dir, unresolved = _parse_dockerfile(files)
    workspace = tuple(
        FileEntry.from_bytes(p, content, executable=executable)
        for p, (content, executable) in sorted(_workspace_files(docker, app_dir).items())
    )

    try:
        if "patchbench" in meta_json:
            try:
                sidecar = _Sidecar.model_validate(meta_json["patchbench"])
            except ValidationError as e:
                raise bad(f"metadata.json 'patchbench': {_brief(e)}") from e
            missing = [p for p in sidecar.hidden_tests if p not in tests]
            if missing:
                raise bad(f"metadata.json lists hidden tests missing from tests/: {', '.join(missing)}")
            hidden = tuple(
                FileEntry.from_bytes(p, tests[p][0], executable=tests[p][1]) for p in sidecar.hidden_tests
            )
            rank = {p: i for i, p in enumerate(sidecar.workspace_order)}
            workspace = tuple(sorted(workspace, key=lambda f: (rank.get(f.path, len(rank)), f.path)))
            context = workspace if sidecar.context_files == "workspace" else sidecar.context_files
            return Task(
                id=task_id,
                prompt=prompt,
                language=sidecar.language,
                workspace=workspace,
                hidden_tests=hidden,
                test=sidecar.test,
                env=sidecar.env,
                fail_to_pass=sidecar.fail_to_pass,
                pass_to_pass=sidecar.pass_to_pass,
                gold_patch=sidecar.gold_patch,
                verifier=sidecar.verifier,
                context_files=context,
                buggy_files=sidecar.buggy_files,
                metadata=dict(sidecar.metadata),
                source_format="harbor",
                extra_files=extra_files,
            )

        timeout = _verifier_timeout(task_toml)
        metadata: dict[str, Any] = {**meta_json, "task_toml": task_toml}
        if unresolved:
            metadata[_UNRESOLVED_KEY] = unresolved
        hidden = tuple(FileEntry.from_bytes(p, c, executable=x) for p, (c, x) in sorted(tests.items()))
        language = _guess_language(task_toml, meta_json, workspace, docker.image, hidden)
        test_kwargs: dict[str, Any] = {"commands": (TestCommand(argv=("bash", "/tests/test.sh")),)}
        if timeout is not None:
            test_kwargs["time_limit_s"] = timeout
        gold = files.get(GOLD_PATCH)
        return Task(
            id=task_id,
            prompt=prompt,
            language=language,
            workspace=workspace,
            hidden_tests=hidden,
            test=TestSpec(**test_kwargs),
            env=EnvSpec(
                language=_env_language(language, hidden),
                image=docker.image,
                system_deps=tuple(docker.system_deps),
                python_requirements=_requirements(docker.python_requirements, tests),
            ),
            verifier=VerifierSpec(kind=VerifierKind.SCRIPT, script="tests/test.sh", app_dir=app_dir),
            gold_patch=gold[0].decode("utf-8", errors="replace") if gold else None,
            metadata=metadata,
            source_format="harbor",
            extra_files=extra_files,
        )
    except ValidationError as e:
        raise bad(_brief(e)) from e


def task_to_files(task: Task) -> Files:
    """The task directory for ``task``: its ``extra_files`` verbatim, or a generated directory.

    Raises:
        DatasetError: a generated directory would need a hidden test at ``tests/test.sh``, where the
            generated verifier lives.
    """
    if task.extra_files:
        return {f.path: (f.data(), f.executable) for f in task.extra_files}
    return _generate(task)


# ------------------------------------------------------------------------------------------- generating


def _generate(task: Task) -> Files:
    own_script = (
        task.verifier is not None
        and task.verifier.kind == VerifierKind.SCRIPT
        and task.verifier.script == "tests/test.sh"
        and any(f.path == "test.sh" for f in task.hidden_tests)
    )
    if not own_script and any(f.path == "test.sh" for f in task.hidden_tests):
        raise DatasetError(
            "a hidden test at test.sh would overwrite the generated tests/test.sh verifier", row=task.id
        )
    files: Files = {
        "instruction.md": (task.prompt.encode("utf-8"), False),
        "task.toml": (_task_toml(task).encode("utf-8"), False),
        "metadata.json": (_metadata_json(task).encode("utf-8"), False),
        "environment/Dockerfile": (_dockerfile(task).encode("utf-8"), False),
    }
    for f in task.workspace:
        files[f"environment/app/{f.path}"] = (f.data(), f.executable)
    for f in task.hidden_tests:
        files[f"tests/{f.path}"] = (f.data(), f.executable)
    if not own_script:
        files["tests/test.sh"] = (_test_sh(task).encode("utf-8"), True)
    return files


def _task_toml(task: Task) -> str:
    kept = task.metadata.get("task_toml")
    if isinstance(kept, dict):
        # A Harbor task that went through another format: its original task.toml, re-serialised.
        try:
            return tomli_w.dumps(kept)
        except (TypeError, ValueError):
            pass  # values JSON turned into something TOML cannot hold: fall back to a generated file
    strings: dict[str, Any] = {k: v for k, v in task.metadata.items() if isinstance(v, str)}
    strings.setdefault("tags", [task.language])
    doc: dict[str, Any] = {
        "version": "1.0",
        "metadata": strings,
        "verifier": {"timeout_sec": float(task.test.time_limit_s)},
    }
    return tomli_w.dumps(doc)


def _jsonable(values: Mapping[str, Any]) -> dict[str, Any]:
    kept: dict[str, Any] = {}
    for key, value in values.items():
        try:
            json.dumps(value, allow_nan=False)
        except (TypeError, ValueError):
            continue  # documented: values JSON cannot carry are not written
        kept[key] = value
    return kept


def _metadata_json(task: Task) -> str:
    context: Literal["workspace"] | tuple[FileEntry, ...] = task.context_files
    if task.context_files and task.context_files == task.workspace:
        context = "workspace"
    sidecar = _Sidecar(
        id=task.id,
        language=task.language,
        test=task.test,
        env=task.env,
        verifier=task.verifier,
        fail_to_pass=task.fail_to_pass,
        pass_to_pass=task.pass_to_pass,
        gold_patch=task.gold_patch,
        buggy_files=task.buggy_files,
        hidden_tests=tuple(f.path for f in task.hidden_tests),
        workspace_order=tuple(f.path for f in task.workspace),
        context_files=context,
        metadata=_jsonable(task.metadata),
    )
    body = {"patchbench": sidecar.model_dump(mode="json")}
    return json.dumps(body, indent=2, ensure_ascii=False) + "\n"


def _dockerfile(task: Task) -> str:
    image = task.env.image or DEFAULT_IMAGES.get(task.language, DEFAULT_IMAGES["python"])
    lines = ["# Generated by patchbench.", f"FROM {image}"]
    if task.env.system_deps:
        deps = " ".join(shlex.quote(d) for d in task.env.system_deps)
        lines.append(
            "RUN apt-get update && apt-get install -y --no-install-recommends "
            f"{deps} && rm -rf /var/lib/apt/lists/*"
        )
    requirements = list(task.env.python_requirements)
    uses_pytest = any("pytest" in c.display() for c in task.test.commands)
    if task.language == "python" and uses_pytest and not any(r.startswith("pytest") for r in requirements):
        requirements.insert(0, "pytest")
    if requirements:
        lines.append("RUN pip install --no-cache-dir " + " ".join(shlex.quote(r) for r in requirements))
    lines.append(f"WORKDIR {_APP}")
    if task.workspace:
        lines.append(f"COPY app/ {_APP}/")
    for cmd in task.env.setup_cmds:
        # A Dockerfile instruction ends at a newline whatever the quoting: multi-line commands go in the
        # JSON exec form, where the newline is an escape sequence.
        lines.append(f"RUN {cmd}" if "\n" not in cmd else "RUN " + json.dumps(["bash", "-c", cmd]))
    return "\n".join(lines) + "\n"


def _test_sh(task: Task) -> str:
    workdir = posixpath.normpath(posixpath.join(_APP, task.test.workdir))
    lines = [
        "#!/usr/bin/env bash",
        "# Generated by patchbench: a default-fail verifier. The reward stays 0 unless every test command",
        "# exits 0; pipefail keeps a failing command from hiding behind a pipe.",
        "set -u",
        "set -o pipefail",
        "mkdir -p /logs/verifier",
        "echo 0 > /logs/verifier/reward.txt",
        "",
        "# The hidden tests are uploaded to /tests: put them into the workspace over any edit of the agent.",
        "install_test() {",
        '    mkdir -p "$(dirname "/app/$1")" && cp "/tests/$1" "/app/$1"',
        "}",
    ]
    lines.extend(f"install_test {shlex.quote(f.path)} || exit 1" for f in task.hidden_tests)
    lines += ["", f"cd {shlex.quote(workdir)} || exit 1", "status=0"]
    for command in task.test.commands:
        if command.shell is not None:
            lines.append(f"bash -o pipefail -c {shlex.quote(command.shell)} || status=1")
        else:
            lines.append(f"{shlex.join(command.argv or ())} || status=1")
    lines += [
        'if [ "$status" -eq 0 ]; then',
        "    echo 1 > /logs/verifier/reward.txt",
        "fi",
        'exit "$status"',
    ]
    return "\n".join(lines) + "\n"


# -------------------------------------------------------------------------------------------- reading


def _is_single_task_dir(path: Path) -> bool:
    """A task directory (possibly broken) rather than a collection of them."""
    markers = (path / "task.toml", path / "instruction.md", path / "tests" / "test.sh")
    return any(m.exists() for m in markers)


def _read_task_dir(task_dir: Path, *, source: str, row: str) -> Files:
    """Every file of a task directory; a symlink is read through only when it stays inside the directory."""
    root = task_dir.resolve()
    files: Files = {}
    for current, dirnames, filenames in os.walk(task_dir, followlinks=False):
        for name in dirnames:
            if os.path.islink(os.path.join(current, name)):
                rel = os.path.relpath(os.path.join(current, name), task_dir)
                raise DatasetError(f"{rel!r} is a symlinked directory (unsupported)", source=source, row=row)
        for name in filenames:
            full = Path(current) / name
            rel = full.relative_to(task_dir).as_posix()
            real = full.resolve()
            if real != root and root not in real.parents:
                raise DatasetError(f"{rel!r} is a symlink pointing outside the task", source=source, row=row)
            try:
                st = real.stat()
                if not stat.S_ISREG(st.st_mode):
                    raise DatasetError(f"{rel!r} is not a regular file", source=source, row=row)
                files[rel] = (real.read_bytes(), bool(st.st_mode & 0o111))
            except OSError as e:
                raise DatasetError(f"cannot read {rel!r} ({_brief(e)})", source=source, row=row) from e
    return files


def _verifier_timeout(task_toml: Mapping[str, Any]) -> float | None:
    verifier = task_toml.get("verifier")
    if not isinstance(verifier, dict):
        return None
    value = verifier.get("timeout_sec")
    if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
        return None
    return float(value)


def _guess_language(
    task_toml: Mapping[str, Any],
    meta_json: Mapping[str, Any],
    workspace: Sequence[FileEntry],
    image: str | None,
    tests: Sequence[FileEntry],
) -> str:
    toml_meta = task_toml.get("metadata")
    sources = [toml_meta if isinstance(toml_meta, dict) else {}, meta_json]
    for meta in sources:
        named = meta.get("language")
        if isinstance(named, str) and named.strip().lower() in _LANGUAGE_ALIASES:
            return _LANGUAGE_ALIASES[named.strip().lower()]
    for meta in sources:
        tags = meta.get("tags")
        if isinstance(tags, list):
            for tag in tags:
                if isinstance(tag, str) and tag.strip().lower() in _LANGUAGE_ALIASES:
                    return _LANGUAGE_ALIASES[tag.strip().lower()]
    by_extension = _language_of_files(workspace)
    if by_extension:
        return by_extension
    if image:
        # "docker.io/library/eclipse-temurin:17-jdk" -> {"eclipse", "temurin"}: whole words only, so that
        # e.g. "ubuntu:trusty" does not read as rust.
        name = image.lower().rsplit("/", 1)[-1].split(":", 1)[0].split("@", 1)[0]
        words = set(re.split(r"[^a-z0-9]+", name))
        for hint, language in _IMAGE_HINTS:
            if hint in words:
                return language
    return _language_of_files(tests) or "python"


def _requirements(image: Sequence[str], tests: Mapping[str, tuple[bytes, bool]]) -> tuple[str, ...]:
    """The Dockerfile's ``pip install`` packages, then what ``tests/test.sh`` runs through ``uvx``
    (Harbor's task template: ``uvx --with pytest==8.4.1 --with pytest-json-ctrf==0.3.5 pytest ...``),
    which the sandbox cannot download at verify time: the setup phase installs them, the uvx shim runs
    them."""
    script = tests.get("test.sh")
    extra = uvx_packages(script[0].decode("utf-8", errors="replace")) if script else []
    out = list(image)
    names = {_package_name(r) for r in image}
    for requirement in extra:
        if _package_name(requirement) not in names:  # the first spelling of a package wins
            names.add(_package_name(requirement))
            out.append(requirement)
    return tuple(out)


def _package_name(requirement: str) -> str:
    return re.split(r"[<>=!~\[;@ ]", requirement.strip(), maxsplit=1)[0].lower().replace("_", "-")


def _env_language(language: str, tests: Sequence[FileEntry]) -> str:
    """The environment that runs the verifier: the task's language when patchbench can prepare it, else
    the tests' (a C project checked by ``tests/test_outputs.py`` needs Python and pytest), else python."""
    if language in ENV_CLASSES:
        return language
    of_tests = _language_of_files(tests)
    return of_tests if of_tests in ENV_CLASSES else "python"


def _language_of_files(files: Sequence[FileEntry]) -> str | None:
    counts = Counter(
        _EXTENSIONS[ext] for f in files if (ext := posixpath.splitext(f.path)[1].lower()) in _EXTENSIONS
    )
    if not counts:
        return None
    best = max(counts.values())
    return sorted(lang for lang, n in counts.items() if n == best)[0]


# ----------------------------------------------------------------------------------------- Dockerfile


def _parse_dockerfile(files: Mapping[str, tuple[bytes, bool]]) -> tuple[ImageSpec, str, list[str]]:
    """The image ``environment/Dockerfile`` builds (build context ``environment/``), the workspace
    directory, and the ``COPY``/``ADD`` lines that could not be resolved."""
    raw = files.get("environment/Dockerfile")
    if raw is None:
        spec = ImageSpec()
        return spec, workspace_dir(spec), []
    try:
        text = raw[0].decode("utf-8")
    except UnicodeDecodeError:
        spec = ImageSpec()
        return spec, workspace_dir(spec), ["environment/Dockerfile is not UTF-8"]
    context = {p[len("environment/") :]: v for p, v in files.items() if p.startswith("environment/")}
    spec = parse_dockerfile(text, context)
    return spec, workspace_dir(spec), list(spec.unresolved)


def _workspace_files(spec: ImageSpec, app_dir: str) -> dict[str, tuple[bytes, bool]]:
    """The files the image puts under ``app_dir``, relative to it (unsafe paths left out)."""
    out: dict[str, tuple[bytes, bool]] = {}
    prefix = app_dir.rstrip("/") + "/"
    for target, entry in spec.files.items():
        if target.startswith(prefix):
            try:
                out[check_relpath(target[len(prefix) :])] = entry
            except ValueError:
                continue
    return out


# -------------------------------------------------------------------------------------------- helpers


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
