"""PatchBench rows: two configs, ``tasks`` (what the model may see) and ``gold`` (harness only), joined by id.

Layouts read (``path`` is a directory, or the tasks file itself, whose gold sibling is then looked up):

* ``tasks/*.parquet`` + ``gold/*.parquet`` (what :meth:`PatchBenchFormat.write` produces, any number of
  shards; ``.jsonl`` shards too);
* ``tasks.parquet`` + ``gold.parquet``, or ``tasks.jsonl`` + ``gold.jsonl``;
* ``data/tasks-*.parquet`` + ``data/gold-*.parquet`` (or ``.jsonl``).

A missing gold table is allowed: the tasks then have no F2P/P2P/gold patch/setup commands. A tasks row
whose gold row is missing loads the same way. A gold row with no tasks row is a row error (unless only
one shard of several tasks shards was read, in which case it belongs to another shard). A tasks row that
carries gold fields itself (a flattened single table) is accepted; the gold row wins where both have a
value.

Mapping to :class:`~patchbench.task.Task`:

=====================  ===========================================================================
column                 Task
=====================  ===========================================================================
id                     ``id``
issue_text             ``prompt``
language               ``language`` and ``env.language``
context_files          ``context_files`` (what the agent is shown); also the workspace when the row
                       has no ``repo``+``base_commit`` (a self-contained row)
buggy_files            ``buggy_files``
test_files             ``hidden_tests``
test_cmds              ``test.commands``, each a shell string; a row without any is a row error
time_limit_s           ``test.time_limit_s`` (optional column; the TestSpec default otherwise)
source, origin, repo,  ``metadata`` under the same keys (null values are left out), except that
base_commit            ``repo`` with ``base_commit`` become ``repository``: the harness runs the whole
                       repository at base_commit (:mod:`patchbench.repos`), not the slice
env_setup_cmds (gold)  ``env.setup_cmds``
fail_to_pass, pass_to_pass, gold_patch (gold)   the fields of the same names
=====================  ===========================================================================

Nothing is dropped: any other tasks column goes into ``metadata`` under its own name, and any other gold
column into ``metadata["gold_extra"]`` (a dict), verbatim. List fields given as a JSON-encoded string
(SWE-bench style ``"[\\"test_a\\"]"``) are decoded; a plain string is a one-element list.

Writing (from any Task, whatever format it came from) produces a directory with
``tasks/train-00000-of-00001.parquet``, ``gold/train-00000-of-00001.parquet`` and a ``README.md`` dataset
card declaring both configs, so ``datasets.load_dataset(dir, "tasks", split="train")`` works. The tasks
config never holds a gold field (:data:`TASKS_COLUMNS` and :data:`GOLD_COLUMNS` are disjoint apart from
``id``). Columns beyond the seed schema:

* tasks ``time_limit_s``: the test time limit;
* tasks ``metadata_json``: a JSON object of every metadata key with no column of its own (one column rather
  than one per key keeps the schema identical across rows). ``source``/``origin``/``repo``/``base_commit``
  fill their columns when they are strings. Values that are not JSON-serialisable are not written. Metadata
  keys named like a gold field, and ``gold_extra``, go to the gold config instead, so nothing leaks;
* tasks ``task_json``: a JSON object of the non-gold Task fields PatchBench has no column for, only when
  they differ from what the columns imply (argv-form test commands, protocol, workdir, env image/system
  deps/python requirements, a verifier, a workspace that differs from the context files, executable or
  binary file flags);
* gold ``metadata_json``: a JSON object of ``metadata["gold_extra"]``, read back into ``gold_extra``.

So write -> read gives back an equal Task (apart from ``source_format``) for any Task whose metadata is
JSON-serialisable. ``extra_files`` (a Harbor task directory kept verbatim) are not written: they may hold
harness-only data (a generated ``metadata.json`` carries the gold patch) and the tasks config is
model-visible. Binary files are written as their base64 text, flagged in ``task_json``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import pyarrow as pa
from pydantic import BaseModel, ConfigDict, ValidationError

from ..errors import DatasetError
from ..task import EnvSpec, FileEntry, Repository, ResultProtocol, Task, TestCommand, TestSpec, VerifierSpec
from ._base import Format, Loaded
from ._tables import parquet_columns, read_rows, write_parquet

__all__ = [
    "GOLD_COLUMNS",
    "GOLD_FIELDS",
    "GOLD_SCHEMA",
    "TASKS_COLUMNS",
    "TASKS_FIELDS",
    "TASKS_SCHEMA",
    "PatchBenchFormat",
    "task_to_rows",
]

TASKS_FIELDS: tuple[str, ...] = (
    "id",
    "language",
    "source",
    "origin",
    "repo",
    "base_commit",
    "issue_text",
    "context_files",
    "buggy_files",
    "test_files",
    "test_cmds",
)
"""The seed's ``tasks`` config fields: everything the model may see."""

GOLD_FIELDS: tuple[str, ...] = ("id", "env_setup_cmds", "fail_to_pass", "pass_to_pass", "gold_patch")
"""The seed's ``gold`` config fields: harness only."""

TASKS_COLUMNS: tuple[str, ...] = (*TASKS_FIELDS, "time_limit_s", "metadata_json", "task_json")
"""Every column the writer puts in the ``tasks`` config, in order."""

GOLD_COLUMNS: tuple[str, ...] = (*GOLD_FIELDS, "metadata_json")
"""Every column the writer puts in the ``gold`` config, in order."""

_GOLD_ONLY = frozenset(GOLD_FIELDS) - {"id"}
_METADATA_COLUMNS = ("source", "origin", "repo", "base_commit")
_TABLE_SUFFIXES = (".parquet", ".jsonl", ".ndjson")
_SHARD = "train-00000-of-00001.parquet"
_DETECT_LINE_LIMIT = 16 * 2**20
_ENTRY_KEYS = frozenset({"path", "filename", "content"})

_Bad = Callable[[str], DatasetError]
"""A row-error factory: message -> DatasetError naming the current row."""

_FILE_STRUCT = pa.struct([("path", pa.string()), ("content", pa.string())])

TASKS_SCHEMA = pa.schema(
    [
        ("id", pa.string()),
        ("language", pa.string()),
        ("source", pa.string()),
        ("origin", pa.string()),
        ("repo", pa.string()),
        ("base_commit", pa.string()),
        ("issue_text", pa.string()),
        ("context_files", pa.list_(_FILE_STRUCT)),
        ("buggy_files", pa.list_(pa.string())),
        ("test_files", pa.list_(_FILE_STRUCT)),
        ("test_cmds", pa.list_(pa.string())),
        ("time_limit_s", pa.float64()),
        ("metadata_json", pa.string()),
        ("task_json", pa.string()),
    ]
)
"""The parquet schema of the written ``tasks`` config."""

GOLD_SCHEMA = pa.schema(
    [
        ("id", pa.string()),
        ("env_setup_cmds", pa.list_(pa.string())),
        ("fail_to_pass", pa.list_(pa.string())),
        ("pass_to_pass", pa.list_(pa.string())),
        ("gold_patch", pa.string()),
        ("metadata_json", pa.string()),
    ]
)
"""The parquet schema of the written ``gold`` config."""

_CARD = """\
---
configs:
- config_name: tasks
  data_files:
  - split: train
    path: tasks/train-*.parquet
- config_name: gold
  data_files:
  - split: train
    path: gold/train-*.parquet
---

# PatchBench tasks

Written by patchbench ({count} tasks). Two configs, joined by `id`:

- `tasks`: what the model may see (issue, context files, test files, test commands).
- `gold`: harness-only fields (`env_setup_cmds`, `fail_to_pass`, `pass_to_pass`, `gold_patch`).
  Never show these to the model.

`metadata_json` holds the remaining metadata as a JSON object; `task_json` holds harness settings that
have no column of their own.
"""


class _FileFlags(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    executable: bool = False
    encoding: Literal["text", "base64"] = "text"


class _TaskExtras(BaseModel):
    """The ``task_json`` column: non-gold Task fields that PatchBench has no column for."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    test_commands: tuple[TestCommand, ...] | None = None
    protocol: ResultProtocol = ResultProtocol.AUTO
    workdir: str = "."
    env_language: str | None = None
    env_image: str | None = None
    env_system_deps: tuple[str, ...] = ()
    env_python_requirements: tuple[str, ...] = ()
    verifier: VerifierSpec | None = None
    workspace: tuple[FileEntry, ...] | None = None
    context_files_empty: bool = False
    file_flags: dict[str, dict[str, _FileFlags]] = {}


@dataclass
class _Layout:
    tasks: list[Path]
    gold: list[Path] = field(default_factory=list)
    tasks_complete: bool = True
    """False when ``tasks`` is one shard of several: orphan gold rows then belong to other shards."""


class PatchBenchFormat(Format):
    """PatchBench ``tasks`` + ``gold`` configs (parquet or JSON Lines); see the module docstring."""

    name = "patchbench"
    description = "PatchBench rows: tasks config (model-visible) + gold config (harness-only), joined by id"

    def detect(self, path: Path) -> bool:
        """True when ``path`` holds (or is) a tasks table with PatchBench columns."""
        try:
            layout = _find_layout(path)
            return layout is not None and _looks_like_tasks_table(layout.tasks[0])
        except Exception:  # detection must never raise, whatever the path holds
            return False

    def read(self, path: Path) -> Loaded:
        """Read every task, joining the gold rows by id.

        Raises:
            DatasetError: no tasks table at ``path``, a table cannot be read, or it has no ``id`` column.
        """
        layout = _find_layout(path)
        if layout is None:
            raise DatasetError(
                "no PatchBench tasks table (tasks/*.parquet, tasks.parquet, tasks.jsonl, "
                "data/tasks-*.parquet or a tasks file)",
                source=str(path),
            )
        loaded = Loaded(format=self.name, source=str(path))

        gold_rows: dict[str, tuple[dict[str, Any], str]] = {}
        for gold_file in layout.gold:
            rows, errors = _read_table(gold_file)
            loaded.errors.extend(errors)
            for index, row in rows:
                gid = row.get("id")
                if not isinstance(gid, str) or not gid.strip():
                    loaded.errors.append(DatasetError("gold row has no id", source=str(gold_file), row=index))
                elif gid in gold_rows:
                    loaded.errors.append(
                        DatasetError("duplicate id in the gold config", source=str(gold_file), row=gid)
                    )
                else:
                    gold_rows[gid] = (row, str(gold_file))

        seen: set[str] = set()
        for tasks_file in layout.tasks:
            rows, errors = _read_table(tasks_file)
            loaded.errors.extend(errors)
            if rows and not any("id" in row for _, row in rows):
                raise DatasetError("the tasks table has no 'id' column", source=str(tasks_file))
            for index, row in rows:
                rid = row.get("id")
                if not isinstance(rid, str) or not rid.strip():
                    loaded.errors.append(DatasetError("row has no id", source=str(tasks_file), row=index))
                    continue
                if rid in seen:
                    loaded.errors.append(
                        DatasetError("duplicate id in the tasks config", source=str(tasks_file), row=rid)
                    )
                    continue
                seen.add(rid)
                try:
                    loaded.tasks.append(_task_from_rows(row, str(tasks_file), gold_rows.get(rid)))
                except DatasetError as e:
                    loaded.errors.append(e)

        if layout.tasks_complete:
            for gid, (_, gold_source) in gold_rows.items():
                if gid not in seen:
                    error = DatasetError("gold row has no tasks row", source=gold_source, row=gid)
                    loaded.errors.append(error)
        return loaded

    def write(self, tasks: Sequence[Task], path: Path) -> None:
        """Write ``tasks`` as a PatchBench dataset directory (see the module docstring).

        Args:
            tasks: the tasks, from any format.
            path: the output directory; created if needed. Files this writer owns are overwritten.

        Raises:
            DatasetError: two tasks share an id, ``path`` is a file, or ``tasks/``/``gold/`` already hold
                other parquet shards (they would silently join the dataset).
        """
        ids: set[str] = set()
        tasks_rows: list[dict[str, Any]] = []
        gold_rows: list[dict[str, Any]] = []
        for task in tasks:
            if task.id in ids:
                raise DatasetError("duplicate task id", source=str(path), row=task.id)
            ids.add(task.id)
            tasks_row, gold_row = task_to_rows(task)
            tasks_rows.append(tasks_row)
            gold_rows.append(gold_row)
        if path.exists() and not path.is_dir():
            raise DatasetError("output path exists and is not a directory", source=str(path))
        for config in ("tasks", "gold"):
            config_dir = path / config
            if config_dir.is_dir():
                stale = sorted(p.name for p in config_dir.glob("*.parquet") if p.name != _SHARD)
                if stale:
                    raise DatasetError(
                        f"{config}/ already holds other shards ({', '.join(stale)}); remove them first",
                        source=str(path),
                    )
        write_parquet(tasks_rows, path / "tasks" / _SHARD, schema=TASKS_SCHEMA)
        write_parquet(gold_rows, path / "gold" / _SHARD, schema=GOLD_SCHEMA)
        (path / "README.md").write_text(_CARD.format(count=len(tasks_rows)), encoding="utf-8")


# --------------------------------------------------------------------------------------------- writing


def task_to_rows(task: Task) -> tuple[dict[str, Any], dict[str, Any]]:
    """The ``tasks`` row and the ``gold`` row for one Task.

    The tasks row has exactly :data:`TASKS_COLUMNS` and never a gold field; the gold row has exactly
    :data:`GOLD_COLUMNS`.
    """
    meta = dict(task.metadata)
    gold_meta: dict[str, Any] = {}
    gold_extra = meta.pop("gold_extra", None)
    if isinstance(gold_extra, dict):
        gold_meta.update(gold_extra)
    elif gold_extra is not None:
        gold_meta["gold_extra"] = gold_extra
    for key in _GOLD_ONLY:
        if key in meta:  # a metadata key named like a gold field is harness data: keep it out of tasks
            gold_meta[key] = meta.pop(key)

    context = task.context_files or task.workspace
    tasks_row: dict[str, Any] = {"id": task.id, "language": task.language}
    if task.repository is not None:
        meta["repo"] = task.repository.repo
        meta["base_commit"] = task.repository.base_commit
    for key in _METADATA_COLUMNS:
        value = meta.get(key)
        if isinstance(value, str):
            tasks_row[key] = meta.pop(key)
        else:
            tasks_row[key] = None  # a non-string value stays in metadata_json, typed
    tasks_row["issue_text"] = task.prompt
    tasks_row["context_files"] = [{"path": f.path, "content": f.content} for f in context]
    tasks_row["buggy_files"] = list(task.buggy_files)
    tasks_row["test_files"] = [{"path": f.path, "content": f.content} for f in task.hidden_tests]
    tasks_row["test_cmds"] = [c.display() for c in task.test.commands]
    tasks_row["time_limit_s"] = float(task.test.time_limit_s)
    tasks_row["metadata_json"] = _json_object(meta)
    tasks_row["task_json"] = _task_extras(task, context)

    gold_row: dict[str, Any] = {
        "id": task.id,
        "env_setup_cmds": list(task.env.setup_cmds),
        "fail_to_pass": list(task.fail_to_pass),
        "pass_to_pass": list(task.pass_to_pass),
        "gold_patch": task.gold_patch,
        "metadata_json": _json_object(gold_meta),
    }
    return tasks_row, gold_row


def _json_object(values: dict[str, Any]) -> str | None:
    """The JSON-serialisable items of ``values`` as a JSON object string, or None when there are none."""
    kept: dict[str, Any] = {}
    for key, value in values.items():
        try:
            json.dumps(value, allow_nan=False)
        except (TypeError, ValueError):
            continue  # documented: values JSON cannot carry are not written
        kept[key] = value
    return json.dumps(kept, ensure_ascii=False) if kept else None


def _file_flags(files: Sequence[FileEntry]) -> dict[str, _FileFlags]:
    return {
        f.path: _FileFlags(executable=f.executable, encoding=f.encoding)
        for f in files
        if f.executable or f.encoding != "text"
    }


def _task_extras(task: Task, context: tuple[FileEntry, ...]) -> str | None:
    flags: dict[str, dict[str, _FileFlags]] = {}
    if context_flags := _file_flags(context):
        flags["context_files"] = context_flags
    if test_flags := _file_flags(task.hidden_tests):
        flags["test_files"] = test_flags
    extras = _TaskExtras(
        # Shell strings survive in test_cmds as they are; an argv only survives here.
        test_commands=task.test.commands if any(c.argv is not None for c in task.test.commands) else None,
        protocol=task.test.protocol,
        workdir=task.test.workdir,
        env_language=task.env.language if task.env.language != task.language else None,
        env_image=task.env.image,
        env_system_deps=task.env.system_deps,
        env_python_requirements=task.env.python_requirements,
        verifier=task.verifier,
        workspace=task.workspace if task.repository is None and task.workspace != context else None,
        context_files_empty=not task.context_files and bool(task.workspace),
        file_flags=flags,
    )
    dumped = extras.model_dump(mode="json", exclude_defaults=True)
    return json.dumps(dumped, ensure_ascii=False, sort_keys=True) if dumped else None


# --------------------------------------------------------------------------------------------- reading


def _find_layout(path: Path) -> _Layout | None:
    """Where the tasks and gold tables are, or None when ``path`` holds no tasks table."""
    if path.is_file():
        if path.suffix.lower() not in _TABLE_SUFFIXES:
            return None
        gold, complete = _gold_for_file(path)
        return _Layout(tasks=[path], gold=gold, tasks_complete=complete)
    if not path.is_dir():
        return None
    tasks = _tables_in(path / "tasks")
    if tasks:
        return _Layout(tasks=tasks, gold=_tables_in(path / "gold"))
    for suffix in _TABLE_SUFFIXES:
        single = path / f"tasks{suffix}"
        if single.is_file():
            gold = [p for s in _TABLE_SUFFIXES if (p := path / f"gold{s}").is_file()]
            return _Layout(tasks=[single], gold=gold[:1])
    data = path / "data"
    if data.is_dir():
        for suffix in _TABLE_SUFFIXES:
            shards = sorted(p for p in data.glob(f"tasks-*{suffix}") if p.is_file())
            if shards:
                gold = sorted(p for p in data.glob(f"gold-*{suffix}") if p.is_file())
                return _Layout(tasks=shards, gold=gold)
    return None


def _tables_in(directory: Path) -> list[Path]:
    """The table files of one config directory: the parquet shards, else the JSON Lines ones."""
    if not directory.is_dir():
        return []
    for suffix in _TABLE_SUFFIXES:
        found = sorted(p for p in directory.glob(f"*{suffix}") if p.is_file())
        if found:
            return found
    return []


def _gold_for_file(tasks_file: Path) -> tuple[list[Path], bool]:
    """The gold tables for a tasks file given directly, and whether that file is the whole tasks config."""
    parent, name = tasks_file.parent, tasks_file.name
    if parent.name == "tasks":
        shards = _tables_in(parent)
        return _tables_in(parent.parent / "gold"), len(shards) <= 1
    if name.startswith("tasks"):
        rest = name[len("tasks") :]
        siblings = [p for p in parent.glob(f"tasks*{tasks_file.suffix}") if p.is_file()]
        gold = sorted(p for p in parent.glob(f"gold*{tasks_file.suffix}") if p.is_file())
        exact = parent / f"gold{rest}"
        if rest == tasks_file.suffix and exact.is_file():
            gold = [exact]
        return gold, len(siblings) <= 1
    return [], True


def _looks_like_tasks_table(path: Path) -> bool:
    """Cheaply: does the table have an ``id`` and PatchBench task columns (and is not a Harbor table)?"""
    if path.suffix.lower() == ".parquet":
        cols = set(parquet_columns(path) or ())
    else:
        with path.open("r", encoding="utf-8") as fh:
            line = ""
            while not line.strip():
                line = fh.readline(_DETECT_LINE_LIMIT)
                if not line:
                    return False
        obj = json.loads(line)
        cols = set(obj) if isinstance(obj, dict) else set()
    return "id" in cols and bool({"issue_text", "test_cmds"} & cols) and not {"path", "task_binary"} <= cols


def _read_table(path: Path) -> tuple[list[tuple[int, dict[str, Any]]], list[DatasetError]]:
    """``(index, row)`` pairs of one table; a bad JSON line is a row error, not the end of the file.

    Raises:
        DatasetError: the file cannot be read at all.
    """
    if path.suffix.lower() == ".parquet":
        return list(enumerate(read_rows(path))), []
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise DatasetError(f"cannot read ({_brief(e)})", source=str(path)) from e
    rows: list[tuple[int, dict[str, Any]]] = []
    errors: list[DatasetError] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as e:
            errors.append(DatasetError(f"invalid JSON ({e.msg})", source=str(path), row=f"line {number}"))
            continue
        if not isinstance(obj, dict):
            errors.append(DatasetError("a JSON object was expected", source=str(path), row=f"line {number}"))
            continue
        rows.append((number - 1, obj))
    return rows, errors


def _task_from_rows(row: dict[str, Any], tasks_file: str, gold: tuple[dict[str, Any], str] | None) -> Task:
    """One Task from its tasks row and (optional) gold row.

    Raises:
        DatasetError: the row is malformed; names the file (tasks or gold) the bad value is in.
    """
    rid: str = row["id"]

    def bad(message: str, source: str = tasks_file) -> DatasetError:
        return DatasetError(message, source=source, row=rid)

    # Gold values with the file they came from, so an error names the right config.
    gold_values: dict[str, tuple[Any, str]] = {k: (row[k], tasks_file) for k in _GOLD_ONLY if k in row}
    gold_extra: dict[str, Any] = {}
    if gold is not None:
        gold_row, gold_file = gold
        for key, value in gold_row.items():
            if key in _GOLD_ONLY:
                if value is not None or key not in gold_values:
                    gold_values[key] = (value, gold_file)
            elif key == "metadata_json":
                for k, v in _json_object_value(value, "metadata_json", lambda m: bad(m, gold_file)).items():
                    gold_extra.setdefault(k, v)
            elif key != "id":
                gold_extra[key] = value

    def gold_list(key: str, one_string: bool = False) -> tuple[str, ...]:
        value, source = gold_values.get(key, (None, tasks_file))
        return _str_list(value, key, lambda m: bad(m, source), one_string=one_string)

    known = set(TASKS_COLUMNS) | _GOLD_ONLY
    metadata: dict[str, Any] = {k: row[k] for k in _METADATA_COLUMNS if row.get(k) is not None}
    metadata.update({k: v for k, v in row.items() if k not in known})
    for key, value in _json_object_value(row.get("metadata_json"), "metadata_json", bad).items():
        metadata.setdefault(key, value)
    if gold_extra:
        metadata["gold_extra"] = gold_extra

    extras = _TaskExtras()
    if row.get("task_json") is not None:
        raw = row["task_json"]
        if not isinstance(raw, str):
            raise bad("task_json is not a string")
        try:
            extras = _TaskExtras.model_validate_json(raw)
        except ValidationError as e:
            raise bad(f"task_json: {_brief(e)}") from e

    language = row.get("language")
    if language is None:
        language = "python"
    if not isinstance(language, str):
        raise bad("language is not a string")
    prompt = row.get("issue_text")
    if prompt is None:
        prompt = ""
    if not isinstance(prompt, str):
        raise bad("issue_text is not a string")

    commands: tuple[TestCommand, ...]
    cmds = _str_list(row.get("test_cmds"), "test_cmds", bad)
    if not cmds:
        raise bad("no test_cmds")
    if extras.test_commands:
        commands = extras.test_commands
    else:
        commands = tuple(TestCommand(shell=c) for c in cmds if c.strip())
        if len(commands) != len(cmds):
            raise bad("test_cmds holds an empty command")

    time_limit = row.get("time_limit_s")
    if time_limit is not None and (isinstance(time_limit, bool) or not isinstance(time_limit, int | float)):
        raise bad("time_limit_s is not a number")

    context = _files(row.get("context_files"), "context_files", extras.file_flags.get("context_files"), bad)
    tests = _files(row.get("test_files"), "test_files", extras.file_flags.get("test_files"), bad)
    workspace = context if extras.workspace is None else extras.workspace
    if extras.context_files_empty:
        context = ()
    repository = None
    repo, base_commit = metadata.get("repo"), metadata.get("base_commit")
    if (
        extras.workspace is None
        and isinstance(repo, str)
        and isinstance(base_commit, str)
        and repo
        and base_commit
    ):
        # A real row: the harness runs the whole repository at base_commit; context_files is the slice.
        try:
            repository = Repository(repo=repo, base_commit=base_commit)
        except ValidationError as e:
            raise bad(_brief(e)) from e
        workspace = ()
        del metadata["repo"], metadata["base_commit"]  # they live in Task.repository now

    gold_patch, gold_patch_source = gold_values.get("gold_patch", (None, tasks_file))
    if gold_patch is not None and not isinstance(gold_patch, str):
        raise bad("gold_patch is not a string", gold_patch_source)

    try:
        test_kwargs: dict[str, Any] = {"commands": commands, "protocol": extras.protocol}
        test_kwargs["workdir"] = extras.workdir
        if time_limit is not None:
            test_kwargs["time_limit_s"] = float(time_limit)
        return Task(
            id=rid,
            prompt=prompt,
            language=language,
            workspace=workspace,
            repository=repository,
            hidden_tests=tests,
            test=TestSpec(**test_kwargs),
            env=EnvSpec(
                language=extras.env_language or language,
                image=extras.env_image,
                system_deps=extras.env_system_deps,
                python_requirements=extras.env_python_requirements,
                setup_cmds=gold_list("env_setup_cmds", one_string=True),
            ),
            fail_to_pass=gold_list("fail_to_pass"),
            pass_to_pass=gold_list("pass_to_pass"),
            gold_patch=gold_patch,
            verifier=extras.verifier,
            context_files=context,
            buggy_files=_str_list(row.get("buggy_files"), "buggy_files", bad),
            metadata=metadata,
            source_format="patchbench",
        )
    except ValidationError as e:
        raise bad(_brief(e)) from e


def _json_object_value(value: Any, name: str, bad: _Bad) -> dict[str, Any]:
    """A ``*_json`` column's object, {} when null."""
    if value is None:
        return {}
    if not isinstance(value, str):
        raise bad(f"{name} is not a string")
    try:
        obj = json.loads(value)
    except json.JSONDecodeError as e:
        raise bad(f"{name} is not valid JSON ({e.msg})") from e
    if not isinstance(obj, dict):
        raise bad(f"{name} is not a JSON object")
    return obj


def _str_list(value: Any, name: str, bad: _Bad, *, one_string: bool = True) -> tuple[str, ...]:
    """A list-of-strings field; a JSON-encoded list string is decoded (SWE-bench's encoding). A plain string
    is one item where ``one_string`` (a command), else the row is bad: a test-id list is never guessed at."""
    if value is None:
        return ()
    if isinstance(value, str):
        if value.lstrip().startswith("["):
            try:
                decoded = json.loads(value)
            except json.JSONDecodeError:
                decoded = None
            if isinstance(decoded, list):
                value = decoded
        if isinstance(value, str):
            if not one_string:
                raise bad(f"{name} is a string, not a list of test ids (nor a JSON-encoded list)")
            return (value,)
    if not isinstance(value, list | tuple):
        raise bad(f"{name} is not a list of strings")
    for index, item in enumerate(value):
        if not isinstance(item, str):
            raise bad(f"{name}[{index}] is not a string")
    return tuple(value)


def _files(value: Any, name: str, flags: dict[str, _FileFlags] | None, bad: _Bad) -> tuple[FileEntry, ...]:
    """A list of ``{path, content}`` entries (``filename`` is accepted for ``path``)."""
    if value is None:
        return ()
    if not isinstance(value, list | tuple):
        raise bad(f"{name} is not a list of {{path, content}}")
    out: list[FileEntry] = []
    for index, entry in enumerate(value):
        if not isinstance(entry, dict):
            raise bad(f"{name}[{index}] is not a {{path, content}} object")
        path = entry.get("path", entry.get("filename"))
        content = entry.get("content")
        unexpected = sorted(k for k, v in entry.items() if k not in _ENTRY_KEYS and v is not None)
        if unexpected:
            raise bad(f"{name}[{index}] has unexpected keys {unexpected}")
        if not isinstance(path, str) or not isinstance(content, str):
            raise bad(f"{name}[{index}] needs a string path and a string content")
        flag = (flags or {}).get(path, _FileFlags())
        try:
            out.append(
                FileEntry(path=path, content=content, executable=flag.executable, encoding=flag.encoding)
            )
        except ValidationError as e:
            raise bad(f"{name}[{index}]: {_brief(e)}") from e
    return tuple(out)


def _brief(e: Exception) -> str:
    """One line describing ``e`` (pydantic errors as ``loc: msg; ...``)."""
    if isinstance(e, ValidationError):
        parts = []
        for err in e.errors():
            loc = ".".join(str(x) for x in err["loc"])
            parts.append(f"{loc}: {err['msg']}" if loc else str(err["msg"]))
        text = "; ".join(parts)
    else:
        text = str(e) or type(e).__name__
    return " ".join(text.split())
