"""PatchBench tasks + gold configs: read, write, round-trip, leakage, bad rows (formats/patchbench.py)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from patchbench.errors import DatasetError
from patchbench.formats.patchbench import (
    GOLD_COLUMNS,
    GOLD_FIELDS,
    TASKS_COLUMNS,
    TASKS_FIELDS,
    PatchBenchFormat,
    task_to_rows,
)
from patchbench.task import EnvSpec, FileEntry, Repository, ResultProtocol, Task, VerifierKind, VerifierSpec

# Aliased: pytest would try to collect classes named Test* found in a test module.
from patchbench.task import TestCommand as Cmd
from patchbench.task import TestSpec as Spec

FMT = PatchBenchFormat()
GOLD_MARK = "GOLD-ONLY-7f3a"

SEED_TASK_ROW: dict[str, Any] = {
    "id": "patchbench-python-real-0001",
    "language": "python",
    "source": "real",
    "origin": "swe-bench-live-multilang",
    "repo": "octo/widgets",
    "base_commit": "0123abcd",
    "issue_text": "Widgets with a zero width crash the layout.",
    "context_files": [{"path": "widgets/layout.py", "content": "def layout(w):\n    return 10 / w\n"}],
    "buggy_files": ["widgets/layout.py"],
    "test_files": [{"path": "tests/test_layout.py", "content": "def test_zero():\n    pass\n"}],
    "test_cmds": ["python -m pytest tests/test_layout.py -q"],
}
SEED_GOLD_ROW: dict[str, Any] = {
    "id": "patchbench-python-real-0001",
    "env_setup_cmds": ["pip install -e ."],
    "fail_to_pass": ["tests/test_layout.py::test_zero"],
    "pass_to_pass": ["tests/test_layout.py::test_one"],
    "gold_patch": f"--- a/widgets/layout.py\n+++ b/widgets/layout.py\n# {GOLD_MARK}\n",
}

_FILES_TYPE = pa.list_(pa.struct([("path", pa.string()), ("content", pa.string())]))
_SEED_TASK_TYPES = {
    "context_files": _FILES_TYPE,
    "test_files": _FILES_TYPE,
    "buggy_files": pa.list_(pa.string()),
    "test_cmds": pa.list_(pa.string()),
}
_SEED_GOLD_TYPES = {k: pa.list_(pa.string()) for k in ("env_setup_cmds", "fail_to_pass", "pass_to_pass")}


def _seed_table(rows: list[dict[str, Any]], types: dict[str, pa.DataType], path: Path) -> None:
    """A parquet file built directly with pyarrow, with the seed's column names (no patchbench code)."""
    names = list(dict.fromkeys(k for r in rows for k in r))
    fields = [pa.field(n, types.get(n, pa.string() if n != "validated" else pa.bool_())) for n in names]
    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.Table.from_pylist(rows, schema=pa.schema(fields)), path)


def _task(**overrides: Any) -> Task:
    files = (FileEntry(path="pkg/core.py", content="def f():\n    return 1\n"),)
    values: dict[str, Any] = {
        "id": "pb-1",
        "prompt": "f() returns the wrong value.",
        "language": "python",
        # repo + base_commit: the harness runs the whole repository; context_files is the slice shown
        "workspace": (),
        "repository": Repository(repo="o/r", base_commit="abc"),
        "context_files": files,
        "hidden_tests": (FileEntry(path="tests/test_core.py", content="def test_f(): ...\n"),),
        "test": Spec(commands=(Cmd(shell="python -m pytest -q tests"),), time_limit_s=90.0),
        "env": EnvSpec(language="python", setup_cmds=("pip install -e .",)),
        "fail_to_pass": ("tests/test_core.py::test_f",),
        "pass_to_pass": ("tests/test_core.py::test_g",),
        "gold_patch": f"diff --git a/pkg/core.py b/pkg/core.py\n# {GOLD_MARK}\n",
        "buggy_files": ("pkg/core.py",),
        "metadata": {"source": "synthetic", "origin": "swesmith-py"},
    }
    values.update(overrides)
    return Task(**values)


def _rich_task() -> Task:
    """A task using every field PatchBench has no column for."""
    return _task(
        id="pb-rich",
        repository=None,
        language="typescript",
        workspace=(
            FileEntry(path="src/a.ts", content="export const a = 1;\n"),
            FileEntry.from_bytes("assets/logo.bin", b"\x89PNG\x00\xff"),
        ),
        context_files=(FileEntry(path="src/a.ts", content="export const a = 1;\n"),),
        hidden_tests=(
            FileEntry(path="test/a.test.ts", content="ok\n"),
            FileEntry(path="test/run.sh", content="#!/bin/sh\n", executable=True),
            FileEntry.from_bytes("test/fixture.bin", b"\x00\x01\xfe"),
        ),
        test=Spec(
            commands=(Cmd(argv=("node", "--test", "test/")), Cmd(shell="echo done | cat")),
            protocol=ResultProtocol.TAP,
            time_limit_s=30.0,
            workdir="pkg",
        ),
        env=EnvSpec(
            language="javascript",
            image="node:20-slim",
            system_deps=("tzdata",),
            python_requirements=("pyyaml",),
            setup_cmds=("npm ci",),
        ),
        verifier=VerifierSpec(kind=VerifierKind.SCRIPT),
        metadata={
            "source": 7,  # not a string: must survive typed, through metadata_json
            "title": "Rich task",
            "nested": {"a": [1, 2, None]},
            "gold_extra": {"validated_twice": True},
        },
        gold_patch=None,
    )


def _same(a: Task, b: Task) -> None:
    assert a.model_copy(update={"source_format": b.source_format}) == b


# --------------------------------------------------------------------------------------------- round trip


def test_write_read_round_trip(tmp_path: Path) -> None:
    tasks = [_task(), _rich_task(), _task(id="pb-empty", context_files=(), workspace=(), metadata={})]
    FMT.write(tasks, tmp_path / "out")
    loaded = FMT.read(tmp_path / "out")
    assert loaded.errors == []
    assert [t.source_format for t in loaded.tasks] == ["patchbench"] * 3
    for got, want in zip(loaded.tasks, tasks, strict=True):
        _same(got, want)


def test_workspace_only_task_round_trips(tmp_path: Path) -> None:
    # A HardBug-style task: the workspace is the context, context_files itself is empty.
    files = (FileEntry(path="pkg/core.py", content="def f():\n    return 1\n"),)
    task = _task(context_files=(), repository=None, workspace=files)
    FMT.write([task], tmp_path / "out")
    (got,) = FMT.read(tmp_path / "out").tasks
    _same(got, task)
    tasks_row, _ = task_to_rows(task)
    assert tasks_row["context_files"] == [{"path": "pkg/core.py", "content": "def f():\n    return 1\n"}]


def test_output_layout_and_dataset_card(tmp_path: Path) -> None:
    out = tmp_path / "out"
    FMT.write([_task()], out)
    assert (out / "tasks" / "train-00000-of-00001.parquet").is_file()
    assert (out / "gold" / "train-00000-of-00001.parquet").is_file()
    card = (out / "README.md").read_text(encoding="utf-8")
    front = card.split("---")[1]
    assert "config_name: tasks" in front and "path: tasks/train-*.parquet" in front
    assert "config_name: gold" in front and "path: gold/train-*.parquet" in front
    assert pq.read_schema(out / "tasks" / "train-00000-of-00001.parquet").names == list(TASKS_COLUMNS)
    assert pq.read_schema(out / "gold" / "train-00000-of-00001.parquet").names == list(GOLD_COLUMNS)


def test_empty_lists_keep_their_type(tmp_path: Path) -> None:
    task = _task(context_files=(), workspace=(), hidden_tests=(), buggy_files=(), fail_to_pass=())
    FMT.write([task], tmp_path / "out")
    schema = pq.read_schema(tmp_path / "out" / "tasks" / "train-00000-of-00001.parquet")
    assert schema.field("context_files").type == _FILES_TYPE
    assert schema.field("buggy_files").type == pa.list_(pa.string())
    gold = pq.read_schema(tmp_path / "out" / "gold" / "train-00000-of-00001.parquet")
    assert gold.field("fail_to_pass").type == pa.list_(pa.string())


def test_load_dataset_reads_both_configs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    datasets = pytest.importorskip("datasets")
    monkeypatch.setattr(datasets.config, "HF_HUB_OFFLINE", True, raising=False)
    monkeypatch.setattr(datasets.config, "HF_DATASETS_OFFLINE", True, raising=False)
    out = tmp_path / "out"
    FMT.write([_task(), _rich_task()], out)
    cache = str(tmp_path / "cache")
    tasks = datasets.load_dataset(str(out), "tasks", split="train", cache_dir=cache)
    gold = datasets.load_dataset(str(out), "gold", split="train", cache_dir=cache)
    assert tasks.num_rows == gold.num_rows == 2
    assert tasks.column_names == list(TASKS_COLUMNS)
    assert gold.column_names == list(GOLD_COLUMNS)
    assert tasks[0]["id"] == "pb-1" and tasks[0]["test_cmds"] == ["python -m pytest -q tests"]
    assert gold[0]["fail_to_pass"] == ["tests/test_core.py::test_f"]
    assert not set(tasks.column_names) & (set(GOLD_FIELDS) - {"id"})


# ------------------------------------------------------------------------------------------------ leakage


def test_column_sets_never_share_a_gold_field() -> None:
    gold_only = set(GOLD_FIELDS) - {"id"}
    assert set(TASKS_FIELDS) & set(GOLD_FIELDS) == {"id"}
    assert not set(TASKS_COLUMNS) & gold_only
    assert set(GOLD_FIELDS) <= set(GOLD_COLUMNS)


def test_no_gold_value_reaches_the_tasks_config(tmp_path: Path) -> None:
    # Gold values also hidden in metadata under gold names: they must go to the gold config.
    task = _task(metadata={"gold_patch": f"also {GOLD_MARK}", "fail_to_pass": ["x"], "title": "t"})
    tasks_row, gold_row = task_to_rows(task)
    assert list(tasks_row) == list(TASKS_COLUMNS)
    assert list(gold_row) == list(GOLD_COLUMNS)
    assert GOLD_MARK not in json.dumps(tasks_row)
    assert "tests/test_core.py::test_f" not in json.dumps(tasks_row)
    assert "pip install -e ." not in json.dumps(tasks_row)

    out = tmp_path / "out"
    FMT.write([task, _rich_task()], out)
    tasks_bytes = (out / "tasks" / "train-00000-of-00001.parquet").read_bytes()
    assert GOLD_MARK.encode() not in tasks_bytes
    assert b"npm ci" not in tasks_bytes and b"validated_twice" not in tasks_bytes
    gold_rows = pq.read_table(out / "gold" / "train-00000-of-00001.parquet").to_pylist()
    assert GOLD_MARK in gold_rows[0]["gold_patch"]
    assert json.loads(gold_rows[0]["metadata_json"])["gold_patch"] == f"also {GOLD_MARK}"


# ------------------------------------------------------------------------------------------ seed sources


def test_seed_parquet_made_with_pyarrow_loads(tmp_path: Path) -> None:
    _seed_table([SEED_TASK_ROW], _SEED_TASK_TYPES, tmp_path / "tasks" / "train-00000-of-00001.parquet")
    _seed_table([SEED_GOLD_ROW], _SEED_GOLD_TYPES, tmp_path / "gold" / "train-00000-of-00001.parquet")
    assert FMT.detect(tmp_path)
    loaded = FMT.read(tmp_path)
    assert loaded.errors == []
    (task,) = loaded.tasks
    assert task.id == "patchbench-python-real-0001"
    assert task.prompt == SEED_TASK_ROW["issue_text"]
    assert task.workspace == ()  # the slice is not the workspace: the repository at base_commit is
    assert task.repository == Repository(repo="octo/widgets", base_commit="0123abcd")
    assert task.context_files[0].path == "widgets/layout.py"
    assert task.buggy_files == ("widgets/layout.py",)
    assert task.hidden_tests[0].path == "tests/test_layout.py"
    assert task.test.commands == (Cmd(shell="python -m pytest tests/test_layout.py -q"),)
    assert task.test.time_limit_s == Spec(commands=(Cmd(shell="x"),)).time_limit_s
    assert task.env.setup_cmds == ("pip install -e .",) and task.env.language == "python"
    assert task.fail_to_pass == ("tests/test_layout.py::test_zero",)
    assert task.pass_to_pass == ("tests/test_layout.py::test_one",)
    assert task.gold_patch == SEED_GOLD_ROW["gold_patch"]
    assert task.metadata == {"source": "real", "origin": "swe-bench-live-multilang"}
    assert task.source_format == "patchbench"


def test_tasks_file_given_directly_finds_its_gold_sibling(tmp_path: Path) -> None:
    _seed_table([SEED_TASK_ROW], _SEED_TASK_TYPES, tmp_path / "tasks.parquet")
    _seed_table([SEED_GOLD_ROW], _SEED_GOLD_TYPES, tmp_path / "gold.parquet")
    for path in (tmp_path, tmp_path / "tasks.parquet"):
        assert FMT.detect(path)
        (task,) = FMT.read(path).tasks
        assert task.fail_to_pass == ("tests/test_layout.py::test_zero",)
    shard = tmp_path / "x" / "tasks" / "train-00000-of-00001.parquet"
    _seed_table([SEED_TASK_ROW], _SEED_TASK_TYPES, shard)
    _seed_table([SEED_GOLD_ROW], _SEED_GOLD_TYPES, tmp_path / "x" / "gold" / "train-00000-of-00001.parquet")
    (task,) = FMT.read(shard).tasks
    assert task.gold_patch == SEED_GOLD_ROW["gold_patch"]


def test_data_dir_shards(tmp_path: Path) -> None:
    second = {
        **SEED_TASK_ROW,
        "id": "patchbench-go-synthetic-0002",
        "language": "go",
        "test_cmds": ["go test ./..."],
    }
    _seed_table([SEED_TASK_ROW], _SEED_TASK_TYPES, tmp_path / "data" / "tasks-00000-of-00002.parquet")
    _seed_table([second], _SEED_TASK_TYPES, tmp_path / "data" / "tasks-00001-of-00002.parquet")
    _seed_table([SEED_GOLD_ROW], _SEED_GOLD_TYPES, tmp_path / "data" / "gold-00000-of-00001.parquet")
    loaded = FMT.read(tmp_path)
    assert loaded.errors == []
    assert [t.id for t in loaded.tasks] == ["patchbench-python-real-0001", "patchbench-go-synthetic-0002"]
    assert loaded.tasks[1].language == "go" and loaded.tasks[1].env.language == "go"
    assert loaded.tasks[1].fail_to_pass == ()  # no gold row: loads without gold fields


def test_jsonl_layout_and_swe_bench_style_lists(tmp_path: Path) -> None:
    gold = {
        **SEED_GOLD_ROW,
        "fail_to_pass": json.dumps(["t::a", "t::b"]),
        "pass_to_pass": json.dumps(["t::c"]),
    }
    (tmp_path / "tasks.jsonl").write_text(json.dumps(SEED_TASK_ROW) + "\n\n", encoding="utf-8")
    (tmp_path / "gold.jsonl").write_text(json.dumps(gold) + "\n", encoding="utf-8")
    assert FMT.detect(tmp_path) and FMT.detect(tmp_path / "tasks.jsonl")
    (task,) = FMT.read(tmp_path).tasks
    assert task.fail_to_pass == ("t::a", "t::b")
    assert task.pass_to_pass == ("t::c",)


def test_a_test_id_list_given_as_a_plain_string_is_a_bad_row_never_guessed(tmp_path: Path) -> None:
    """A plain string F2P was read as a one-item list; a list field given as a string is now the row's
    bad_task (issue 13), while a JSON-encoded list (SWE-bench's encoding) is still decoded."""
    gold = {**SEED_GOLD_ROW, "pass_to_pass": "t::c"}
    (tmp_path / "tasks.jsonl").write_text(json.dumps(SEED_TASK_ROW) + "\n", encoding="utf-8")
    (tmp_path / "gold.jsonl").write_text(json.dumps(gold) + "\n", encoding="utf-8")
    loaded = FMT.read(tmp_path)
    assert list(loaded.tasks) == []
    assert len(loaded.errors) == 1 and "pass_to_pass is a string" in str(loaded.errors[0])


def test_time_limit_column_is_used(tmp_path: Path) -> None:
    row = {**SEED_TASK_ROW, "time_limit_s": 42}
    (tmp_path / "tasks.jsonl").write_text(json.dumps(row) + "\n", encoding="utf-8")
    (task,) = FMT.read(tmp_path).tasks
    assert task.test.time_limit_s == 42.0
    assert "time_limit_s" not in task.metadata


def test_flattened_single_table_with_gold_fields(tmp_path: Path) -> None:
    (tmp_path / "rows.jsonl").write_text(
        json.dumps({**SEED_TASK_ROW, **SEED_GOLD_ROW}) + "\n", encoding="utf-8"
    )
    (task,) = FMT.read(tmp_path / "rows.jsonl").tasks
    assert task.gold_patch == SEED_GOLD_ROW["gold_patch"]
    assert task.env.setup_cmds == ("pip install -e .",)
    assert not set(task.metadata) & set(GOLD_FIELDS)


# ----------------------------------------------------------------------------------- unknown columns kept


def test_unknown_columns_are_preserved(tmp_path: Path) -> None:
    src, out = tmp_path / "src", tmp_path / "out"
    _seed_table(
        [{**SEED_TASK_ROW, "difficulty": "hard", "license": "MIT"}],
        _SEED_TASK_TYPES,
        src / "tasks" / "train-00000-of-00001.parquet",
    )
    _seed_table(
        [{**SEED_GOLD_ROW, "validated": True, "validator": "v2"}],
        _SEED_GOLD_TYPES,
        src / "gold" / "train-00000-of-00001.parquet",
    )
    (task,) = FMT.read(src).tasks
    assert task.metadata["difficulty"] == "hard" and task.metadata["license"] == "MIT"
    assert task.metadata["gold_extra"] == {"validated": True, "validator": "v2"}

    FMT.write([task], out)
    tasks_row = pq.read_table(out / "tasks" / "train-00000-of-00001.parquet").to_pylist()[0]
    gold_row = pq.read_table(out / "gold" / "train-00000-of-00001.parquet").to_pylist()[0]
    assert json.loads(tasks_row["metadata_json"]) == {"difficulty": "hard", "license": "MIT"}
    assert json.loads(gold_row["metadata_json"]) == {"validated": True, "validator": "v2"}
    (again,) = FMT.read(out).tasks
    assert again == task


# ----------------------------------------------------------------------------------------------- bad rows


def test_bad_rows_are_reported_with_their_id(tmp_path: Path) -> None:
    rows = [
        SEED_TASK_ROW,
        {**SEED_TASK_ROW, "id": "no-cmds", "test_cmds": []},
        {**SEED_TASK_ROW, "id": "bad-files", "context_files": [{"path": "../escape.py", "content": "x"}]},
        {**SEED_TASK_ROW, "id": "bad-type", "buggy_files": "not-a-list-but-fine", "issue_text": 3},
        {**SEED_TASK_ROW, "id": None},
        {**SEED_TASK_ROW, "id": "ok-2"},
        {**SEED_TASK_ROW, "id": "ok-2"},
    ]
    gold = [
        SEED_GOLD_ROW,
        {**SEED_GOLD_ROW, "id": "orphan"},
        {**SEED_GOLD_ROW, "id": "ok-2", "fail_to_pass": [1, 2]},
    ]
    with (tmp_path / "tasks.jsonl").open("w", encoding="utf-8") as fh:
        for row in rows:
            fh.write(json.dumps(row) + "\n")
        fh.write("{broken json\n")
    with (tmp_path / "gold.jsonl").open("w", encoding="utf-8") as fh:
        for row in gold:
            fh.write(json.dumps(row) + "\n")
    loaded = FMT.read(tmp_path)
    assert [t.id for t in loaded.tasks] == ["patchbench-python-real-0001"]
    by_row: dict[object, list[str]] = {}
    for e in loaded.errors:
        by_row.setdefault(e.row, []).append(str(e))
    assert set(by_row) == {"no-cmds", "bad-files", "bad-type", 4, "ok-2", "orphan", "line 8"}
    assert "no test_cmds" in by_row["no-cmds"][0]
    assert "context_files[0]" in by_row["bad-files"][0] and "escape.py" in by_row["bad-files"][0]
    assert "issue_text" in by_row["bad-type"][0]
    first_ok2, second_ok2 = by_row["ok-2"]
    assert "gold.jsonl" in first_ok2 and "fail_to_pass[0]" in first_ok2
    assert "tasks.jsonl" in second_ok2 and "duplicate id" in second_ok2
    assert "no tasks row" in by_row["orphan"][0] and "gold.jsonl" in by_row["orphan"][0]
    assert "invalid JSON" in by_row["line 8"][0]
    assert "row has no id" in by_row[4][0]
    for e in loaded.errors:
        assert "\n" not in str(e)
        assert e.source is not None and e.source.endswith((".jsonl",))


def test_whole_source_errors_raise(tmp_path: Path) -> None:
    with pytest.raises(DatasetError, match="no PatchBench tasks table"):
        FMT.read(tmp_path)
    pq.write_table(pa.table({"name": ["x"], "issue_text": ["y"]}), tmp_path / "tasks.parquet")
    with pytest.raises(DatasetError, match="no 'id' column"):
        FMT.read(tmp_path)
    (tmp_path / "tasks.parquet").write_bytes(b"PAR1 not really")
    with pytest.raises(DatasetError, match=r"tasks\.parquet"):
        FMT.read(tmp_path)


def test_detect_is_cheap_and_never_raises(tmp_path: Path) -> None:
    assert not FMT.detect(tmp_path / "missing")
    assert not FMT.detect(tmp_path)
    harbor = tmp_path / "h" / "tasks.parquet"
    harbor.parent.mkdir()
    pq.write_table(pa.table({"path": ["t"], "task_binary": [b"x"]}), harbor)
    assert not FMT.detect(harbor) and not FMT.detect(harbor.parent)
    junk = tmp_path / "j" / "tasks.parquet"
    junk.parent.mkdir()
    junk.write_bytes(b"\x00" * 10)
    assert not FMT.detect(junk) and not FMT.detect(junk.parent)
    (tmp_path / "k").mkdir()
    (tmp_path / "k" / "tasks.jsonl").write_text("{not json\n", encoding="utf-8")
    assert not FMT.detect(tmp_path / "k")


# -------------------------------------------------------------------------------------------------- write


def test_write_rejects_duplicate_ids_and_stale_shards(tmp_path: Path) -> None:
    with pytest.raises(DatasetError, match="duplicate task id"):
        FMT.write([_task(), _task()], tmp_path / "dup")
    out = tmp_path / "out"
    FMT.write([_task()], out)
    FMT.write([_task(id="pb-2")], out)  # rewriting the same directory is fine
    assert [t.id for t in FMT.read(out).tasks] == ["pb-2"]
    pq.write_table(pa.table({"id": ["x"]}), out / "tasks" / "train-00001-of-00002.parquet")
    with pytest.raises(DatasetError, match="other shards"):
        FMT.write([_task()], out)


def test_non_json_metadata_is_skipped_not_fatal(tmp_path: Path) -> None:
    task = _task(metadata={"title": "t", "blob": b"\x00", "when": object()})
    FMT.write([task], tmp_path / "out")
    (got,) = FMT.read(tmp_path / "out").tasks
    assert got.metadata == {"title": "t"}


def test_harbor_task_survives_patchbench(tmp_path: Path) -> None:
    # A Harbor-shaped task (script verifier, argv command, workspace only, executable test.sh).
    task = Task(
        id="bugsinpy-0001",
        prompt="Fix solution.py",
        workspace=(FileEntry(path="solution.py", content="x = 1\n"),),
        hidden_tests=(
            FileEntry(path="test.sh", content="#!/bin/bash\necho 0\n", executable=True),
            FileEntry(path="test_solution.py", content="def test(): pass\n"),
        ),
        test=Spec(commands=(Cmd(argv=("bash", "/tests/test.sh")),), time_limit_s=120.0),
        env=EnvSpec(image="python:3.10-slim", python_requirements=("pytest",)),
        verifier=VerifierSpec(kind=VerifierKind.SCRIPT),
        metadata={"task_toml": {"version": "1.0", "verifier": {"timeout_sec": 120.0}}, "project": "black"},
        source_format="harbor",
    )
    FMT.write([task], tmp_path / "out")
    (got,) = FMT.read(tmp_path / "out").tasks
    _same(got, task)


def test_a_verifier_time_limit_written_by_an_older_version_is_read_as_the_one_time_limit() -> None:
    """VerifierSpec had its own ``timeout_s`` beside ``TestSpec.time_limit_s`` (the script path preferred
    it, ``audit --time-limit`` capped the other). A task has one time limit now; the old key is accepted
    and dropped (older writers stored both, equal)."""
    spec = VerifierSpec.model_validate({"kind": "script", "timeout_s": 120.0})
    assert spec == VerifierSpec(kind=VerifierKind.SCRIPT)
    assert "timeout_s" not in VerifierSpec.model_fields
