"""HardBug (seed 004): rows as parquet/JSONL, and the ``tasks/<id>/`` source layout.

Rows carry the seed's exact columns (``task_id, title, language, category, difficulty, source, license,
created, prompt, repo_files, test_files, gold_patch, test_command, fail_to_pass, pass_to_pass,
time_limit_s, sandbox_image, sandbox_system_deps``); ``repo_files``/``test_files`` are lists of
``{filename, content}`` sorted by filename. Any other column is kept in ``Task.metadata`` and written back
as a column of its own.

The source layout is ``tasks/<id>/{problem.md, repo/, fixed/, tests/, meta.json, run.json}``:

* ``meta.json`` holds the descriptive columns (task_id, title, language, category, difficulty, source,
  license, created, sandbox_image, sandbox_system_deps) and any extra keys;
* ``run.json`` holds ``test_command``, ``fail_to_pass``, ``pass_to_pass``, ``time_limit_s`` and optionally
  ``tests_root``, the workspace directory that ``tests/`` maps to (default ``tests``: ``tests/x.py`` in the
  task dir is ``tests/x.py`` in the workspace; ``""`` maps it to the workspace root);
* the gold patch is the diff from ``repo/`` to ``fixed/``.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import shutil
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pyarrow as pa

from ..errors import DatasetError, PatchError
from ..task import EnvSpec, FileEntry, Task, TestCommand, TestSpec
from ..workspace import apply_patch, materialise, unified_diff
from ._base import Format, Loaded
from ._tables import parquet_columns, read_rows, write_jsonl, write_parquet

COLUMNS = (
    "task_id",
    "title",
    "language",
    "category",
    "difficulty",
    "source",
    "license",
    "created",
    "prompt",
    "repo_files",
    "test_files",
    "gold_patch",
    "test_command",
    "fail_to_pass",
    "pass_to_pass",
    "time_limit_s",
    "sandbox_image",
    "sandbox_system_deps",
)
#: Columns that live in Task.metadata under their own names.
META_COLUMNS = ("title", "category", "difficulty", "source", "license", "created")
REQUIRED = ("task_id", "repo_files", "test_files", "test_command")
META_FILE_KEYS = (
    "task_id",
    "title",
    "language",
    "category",
    "difficulty",
    "source",
    "license",
    "created",
    "sandbox_image",
    "sandbox_system_deps",
)
RUN_FILE_KEYS = ("test_command", "fail_to_pass", "pass_to_pass", "time_limit_s", "tests_root")

_FILES = pa.list_(pa.struct([("filename", pa.string()), ("content", pa.string())]))
SCHEMA = pa.schema(
    [
        ("task_id", pa.string()),
        ("title", pa.string()),
        ("language", pa.string()),
        ("category", pa.string()),
        ("difficulty", pa.string()),
        ("source", pa.string()),
        ("license", pa.string()),
        ("created", pa.string()),
        ("prompt", pa.string()),
        ("repo_files", _FILES),
        ("test_files", _FILES),
        ("gold_patch", pa.string()),
        ("test_command", pa.list_(pa.string())),
        ("fail_to_pass", pa.list_(pa.string())),
        ("pass_to_pass", pa.list_(pa.string())),
        ("time_limit_s", pa.float64()),
        ("sandbox_image", pa.string()),
        ("sandbox_system_deps", pa.list_(pa.string())),
    ]
)
DEFAULT_TIME_LIMIT = 600.0


# --- rows ------------------------------------------------------------------------------------------


def task_from_row(row: dict[str, Any], *, source: str, index: int) -> Task:
    """One HardBug row → Task.

    Raises:
        DatasetError: a required column is missing or a value has the wrong shape.
    """
    rid: str | int = row.get("task_id") or index
    missing = [c for c in REQUIRED if row.get(c) is None]
    if missing:
        raise DatasetError(f"missing column(s): {', '.join(missing)}", source=source, row=rid)
    try:
        cmd = row["test_command"]
        if isinstance(cmd, str):
            command = TestCommand(shell=cmd)
        else:
            command = TestCommand(argv=tuple(str(a) for a in cmd))
        limit = row.get("time_limit_s")
        metadata = {k: _plain(row[k]) for k in META_COLUMNS if k in row}
        metadata |= {k: _plain(v) for k, v in row.items() if k not in COLUMNS}
        language = str(row.get("language") or "python")
        return Task(
            id=str(row["task_id"]),
            prompt=str(row.get("prompt") or ""),
            language=language,
            workspace=_entries(row["repo_files"], "repo_files"),
            hidden_tests=_entries(row["test_files"], "test_files"),
            test=TestSpec(
                commands=(command,),
                time_limit_s=float(limit) if limit else DEFAULT_TIME_LIMIT,
            ),
            env=EnvSpec(
                language=language,
                image=row.get("sandbox_image") or None,
                system_deps=_list(row, "sandbox_system_deps"),
            ),
            fail_to_pass=_list(row, "fail_to_pass"),
            pass_to_pass=_list(row, "pass_to_pass"),
            gold_patch=row.get("gold_patch") or None,
            metadata=metadata,
            source_format="hardbug",
        )
    except (ValueError, TypeError, KeyError) as e:
        raise DatasetError(_one_line(e), source=source, row=rid) from None


def task_to_row(task: Task) -> dict[str, Any]:
    """Task → one HardBug row (seed columns in order, then extra metadata columns)."""
    md = task.metadata
    cmd = task.test.commands[0]
    row: dict[str, Any] = {
        "task_id": task.id,
        **{
            k: _str_or_none(md.get(k))
            for k in ("title", "language", "category", "difficulty", "source", "license", "created")
        },
        "language": task.language,
        "prompt": task.prompt,
        "repo_files": [
            {"filename": f.path, "content": f.content} for f in sorted(task.workspace, key=lambda f: f.path)
        ],
        "test_files": [
            {"filename": f.path, "content": f.content}
            for f in sorted(task.hidden_tests, key=lambda f: f.path)
        ],
        "gold_patch": task.gold_patch,
        "test_command": list(cmd.argv) if cmd.argv is not None else ["bash", "-c", cmd.shell or ""],
        "fail_to_pass": list(task.fail_to_pass),
        "pass_to_pass": list(task.pass_to_pass),
        "time_limit_s": task.test.time_limit_s,
        "sandbox_image": task.env.image,
        "sandbox_system_deps": list(task.env.system_deps),
    }
    row = {k: row[k] for k in COLUMNS}
    for k, v in md.items():
        if k not in COLUMNS:
            row[k] = v
    return row


class HardBugRowsFormat(Format):
    """HardBug rows: a ``.parquet``/``.jsonl`` file, or a directory with ``data/train-*.parquet``."""

    name = "hardbug"
    description = "HardBug rows (parquet or JSONL with seed-004 columns; data/train-*.parquet)"

    def _files(self, path: Path) -> list[Path]:
        if path.is_dir():
            shards = sorted((path / "data").glob("*.parquet")) if (path / "data").is_dir() else []
            if not shards and (path / "data" / "train.jsonl").is_file():
                shards = [path / "data" / "train.jsonl"]
            return shards
        return [path]

    def detect(self, path: Path) -> bool:
        files = self._files(path)
        if not files:
            return False
        f = files[0]
        if f.suffix == ".parquet":
            cols = parquet_columns(f) or []
            return all(c in cols for c in ("task_id", "repo_files", "test_files"))
        if f.suffix in (".jsonl", ".json"):
            try:
                with f.open(encoding="utf-8") as fh:
                    first = json.loads(fh.readline())
                return isinstance(first, dict) and all(c in first for c in ("task_id", "repo_files"))
            except (OSError, ValueError):
                return False
        return False

    def read(self, path: Path) -> Loaded:
        out = Loaded(format=self.name, source=str(path))
        files = self._files(path)
        if not files:
            raise DatasetError("no HardBug row files found (expected data/train-*.parquet)", source=str(path))
        index = 0
        for f in files:
            for row in read_rows(f, out.errors):
                try:
                    out.tasks.append(task_from_row(row, source=str(f), index=index))
                except DatasetError as e:
                    out.errors.append(e)
                index += 1
        return out

    def write(self, tasks: Sequence[Task], path: Path) -> None:
        rows = [task_to_row(t) for t in tasks]
        if path.suffix == ".jsonl":
            write_jsonl(({k: _jsonable(v) for k, v in r.items()} for r in rows), path)
            return
        if path.suffix == ".parquet":
            _write_rows_parquet(rows, path)
            return
        _write_rows_parquet(rows, path / "data" / "train-00000-of-00001.parquet")
        write_jsonl(({k: _jsonable(v) for k, v in r.items()} for r in rows), path / "data" / "train.jsonl")
        card = path / "README.md"
        if not card.exists():
            card.write_text(_CARD, encoding="utf-8")


def _write_rows_parquet(rows: list[dict[str, Any]], path: Path) -> None:
    extra = sorted({k for r in rows for k in r if k not in COLUMNS})
    schema = SCHEMA
    full = [{**{k: None for k in extra}, **r} for r in rows]
    for r in full:
        if r.get("created") is not None and not isinstance(r["created"], str):
            r["created"] = str(r["created"])
    if extra:
        try:
            inferred = pa.Table.from_pylist([{k: r[k] for k in extra} for r in full]).schema
            schema = pa.schema(list(SCHEMA) + list(inferred))
        except (pa.ArrowException, TypeError, ValueError):
            # Heterogeneous extra metadata: keep it, as JSON text.
            for r in full:
                for k in extra:
                    r[k] = None if r[k] is None else json.dumps(_jsonable(r[k]))
            schema = pa.schema(list(SCHEMA) + [(k, pa.string()) for k in extra])
    write_parquet(full, path, schema)


_CARD = """---
configs:
- config_name: default
  data_files:
  - split: train
    path: data/train-*.parquet
---

# HardBug-format dataset

Written by patchbench. One row per task with the HardBug columns.
"""


# --- tasks/ source layout --------------------------------------------------------------------------


class HardBugTasksFormat(Format):
    """The HardBug source layout: ``tasks/<id>/{problem.md, repo/, fixed/, tests/, meta.json, run.json}``."""

    name = "hardbug-tasks"
    description = (
        "HardBug source layout (tasks/<id>/ with problem.md, repo/, fixed/, tests/, meta.json, run.json)"
    )

    @staticmethod
    def _task_dirs(path: Path) -> list[Path]:
        if _is_task_dir(path):
            return [path]
        root = path / "tasks" if (path / "tasks").is_dir() else path
        if not root.is_dir():
            return []
        return sorted(d for d in root.iterdir() if d.is_dir() and _is_task_dir(d))

    def detect(self, path: Path) -> bool:
        try:
            return path.is_dir() and bool(self._task_dirs(path))
        except OSError:
            return False

    def read(self, path: Path) -> Loaded:
        out = Loaded(format=self.name, source=str(path))
        dirs = self._task_dirs(path)
        if not dirs:
            raise DatasetError(
                "no task directories (tasks/<id>/ with meta.json and run.json)", source=str(path)
            )
        for d in dirs:
            try:
                out.tasks.append(read_task_dir(d))
            except DatasetError as e:
                out.errors.append(e)
        return out

    def write(self, tasks: Sequence[Task], path: Path) -> None:
        root = path / "tasks"
        for t in tasks:
            write_task_dir(t, root / t.id)


def _is_task_dir(d: Path) -> bool:
    return (d / "meta.json").is_file() and (d / "run.json").is_file()


def read_task_dir(d: Path) -> Task:
    """Read one ``tasks/<id>/`` directory.

    Raises:
        DatasetError: a file is missing or malformed.
    """
    src = str(d)
    meta = _read_json(d / "meta.json")
    runj = _read_json(d / "run.json")
    if not (d / "repo").is_dir():
        raise DatasetError("missing repo/ directory", source=src)
    problem = d / "problem.md"
    if not problem.is_file():
        raise DatasetError("missing problem.md", source=src)
    repo = _read_tree(d / "repo")
    fixed = _read_tree(d / "fixed") if (d / "fixed").is_dir() else None
    tests_root = str(runj.get("tests_root", "tests")).strip("/")
    tests = _read_tree(d / "tests") if (d / "tests").is_dir() else {}
    test_files = [
        {"filename": f"{tests_root}/{k}" if tests_root else k, "content": v} for k, v in sorted(tests.items())
    ]
    row: dict[str, Any] = {k: v for k, v in meta.items()}
    row.setdefault("task_id", d.name)
    row["prompt"] = problem.read_text(encoding="utf-8")
    row["repo_files"] = [{"filename": k, "content": v} for k, v in sorted(repo.items())]
    row["test_files"] = test_files
    row["gold_patch"] = unified_diff(repo, fixed) if fixed is not None else None
    for k, v in runj.items():
        if k != "tests_root":
            row[k] = v
    task = task_from_row(row, source=src, index=0)
    return task.model_copy(update={"source_format": "hardbug-tasks"})


def write_task_dir(task: Task, d: Path) -> None:
    """Write one task as ``d/{problem.md, repo/, fixed/, tests/, meta.json, run.json}``.

    Raises:
        DatasetError: the gold patch does not apply to the workspace.
    """
    row = task_to_row(task)
    tests_root = infer_tests_root(task)
    if d.exists():
        shutil.rmtree(d)
    d.mkdir(parents=True)
    (d / "problem.md").write_text(task.prompt, encoding="utf-8")
    materialise(task.workspace, d / "repo")
    if task.gold_patch:
        with tempfile.TemporaryDirectory() as tmp:
            fixed = Path(tmp) / "fixed"
            materialise(task.workspace, fixed)

            def restore() -> None:
                shutil.rmtree(fixed)
                materialise(task.workspace, fixed)

            try:
                apply_patch(fixed, task.gold_patch, restore=restore)
            except PatchError as e:
                raise DatasetError(f"gold patch does not apply: {e}", source=str(d), row=task.id) from e
            shutil.copytree(fixed, d / "fixed")
    (d / "tests").mkdir()
    prefix = f"{tests_root}/" if tests_root else ""
    for f in task.hidden_tests:
        rel = f.path[len(prefix) :] if prefix and f.path.startswith(prefix) else f.path
        dest = d / "tests" / rel
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_bytes(f.data())
    meta = {k: _jsonable(row[k]) for k in META_FILE_KEYS}
    meta |= {k: _jsonable(v) for k, v in row.items() if k not in COLUMNS}
    runj: dict[str, Any] = {
        k: row[k] for k in ("test_command", "fail_to_pass", "pass_to_pass", "time_limit_s")
    }
    if tests_root != "tests":
        runj["tests_root"] = tests_root
    (d / "meta.json").write_text(json.dumps(meta, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    (d / "run.json").write_text(json.dumps(runj, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def infer_tests_root(task: Task) -> str:
    """The workspace directory the task dir's ``tests/`` maps to, read off the hidden test paths.

    ``tests`` when every hidden test is under ``tests/`` (the default, not written to run.json);
    otherwise the deepest directory holding all of them (``src/test/java``), or ``""`` (the root).
    """
    paths = [f.path for f in task.hidden_tests]
    if not paths or all(p.startswith("tests/") for p in paths):
        return "tests"
    dirs = [p.split("/")[:-1] for p in paths]
    common: list[str] = []
    for parts in zip(*dirs, strict=False):
        if len(set(parts)) != 1:
            break
        common.append(parts[0])
    return "/".join(common)


def _read_tree(root: Path) -> dict[str, str]:
    out: dict[str, str] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in ("__pycache__", ".git"))
        for name in sorted(filenames):
            p = Path(dirpath) / name
            if p.is_symlink():
                raise DatasetError("symlinks are not supported in task directories", source=str(p))
            if name.endswith(".pyc"):
                continue
            try:
                out[p.relative_to(root).as_posix()] = p.read_text(encoding="utf-8")
            except UnicodeDecodeError:
                raise DatasetError("not a UTF-8 text file", source=str(p)) from None
    return out


def _read_json(p: Path) -> dict[str, Any]:
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise DatasetError("missing file", source=str(p)) from None
    except (OSError, ValueError) as e:
        raise DatasetError(f"invalid JSON ({_one_line(e)})", source=str(p)) from None
    if not isinstance(data, dict):
        raise DatasetError("a JSON object was expected", source=str(p))
    return data


def _list(row: dict[str, Any], column: str) -> tuple[str, ...]:
    """A list column; a string there is a malformed row (never split into its characters)."""
    value = row.get(column)
    if value is None:
        return ()
    if isinstance(value, str | bytes) or not isinstance(value, list | tuple):
        raise ValueError(f"{column} must be a list of strings, got {type(value).__name__}")
    return tuple(str(t) for t in value)


def _entries(value: Any, column: str) -> tuple[FileEntry, ...]:
    if not isinstance(value, (list, tuple)):
        raise ValueError(f"{column} must be a list of {{filename, content}}")
    out = []
    for e in value:
        if not isinstance(e, dict) or "filename" not in e or "content" not in e:
            raise ValueError(f"{column}: every entry needs filename and content")
        try:
            out.append(FileEntry(path=str(e["filename"]), content=str(e["content"] or "")))
        except ValueError as err:
            raise ValueError(f"{column}: {_one_line(err)}") from None
    return tuple(out)


def _plain(v: Any) -> Any:
    if isinstance(v, (_dt.date, _dt.datetime)):
        return v.isoformat()
    return v


def _jsonable(v: Any) -> Any:
    if isinstance(v, (_dt.date, _dt.datetime)):
        return v.isoformat()
    if isinstance(v, tuple):
        return list(v)
    return v


def _str_or_none(v: Any) -> str | None:
    return None if v is None else str(_plain(v))


def _one_line(e: BaseException) -> str:
    text = str(e)
    if "validation error" in text:
        # pydantic: keep the first error's message only
        lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
        text = "; ".join(lines[1:3]) if len(lines) > 1 else text
    return " ".join(text.split())[:300]
