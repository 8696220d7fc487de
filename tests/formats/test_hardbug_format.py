"""HardBug rows (parquet, JSONL) and the tasks/ source layout: read, write, round-trip."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import patchbench as pb
from patchbench.formats import detect, read, write
from patchbench.formats.hardbug import COLUMNS

SEED_ROW = {
    "task_id": "py-demo-001",
    "title": "Off-by-one in range merge",
    "language": "python",
    "category": "off-by-one",
    "difficulty": "expert",
    "source": "original-synthetic",
    "license": "MIT",
    "created": "2026-01-02",
    "prompt": "Touching ranges are not merged.",
    "repo_files": [{"filename": "merge.py", "content": "def ok():\n    return False\n"}],
    "test_files": [{"filename": "tests/run.sh", "content": "echo 1..1\necho 'not ok 1 - merges'\n"}],
    "gold_patch": (
        "--- a/merge.py\n+++ b/merge.py\n@@ -1,2 +1,2 @@\n def ok():\n-    return False\n+    return True\n"
    ),
    "test_command": ["bash", "tests/run.sh"],
    "fail_to_pass": ["merges"],
    "pass_to_pass": [],
    "time_limit_s": 30,
    "sandbox_image": "python:3.11-slim",
    "sandbox_system_deps": ["tzdata"],
}


def test_a_parquet_written_by_plain_pyarrow_with_the_seed_columns_loads(tmp_path: Path) -> None:
    """Another tool's parquet (pyarrow, exact seed-004 columns, inferred types) loads."""
    row = dict(SEED_ROW, extra_column="kept")
    path = tmp_path / "train-00000-of-00001.parquet"
    pq.write_table(pa.Table.from_pylist([row]), path)
    assert detect(path).name == "hardbug"
    loaded = read(path)
    assert not loaded.errors
    t = loaded.tasks[0]
    assert t.id == "py-demo-001" and t.prompt.startswith("Touching")
    assert t.workspace_map() == {"merge.py": "def ok():\n    return False\n"}
    assert [f.path for f in t.hidden_tests] == ["tests/run.sh"]
    assert t.test.commands[0].argv == ("bash", "tests/run.sh")
    assert t.fail_to_pass == ("merges",) and t.test.time_limit_s == 30
    assert t.env.image == "python:3.11-slim" and t.env.system_deps == ("tzdata",)
    assert t.metadata["category"] == "off-by-one" and t.metadata["extra_column"] == "kept"


def test_a_hf_style_directory_with_data_shards_loads(tmp_path: Path) -> None:
    (tmp_path / "data").mkdir()
    pq.write_table(pa.Table.from_pylist([SEED_ROW]), tmp_path / "data" / "train-00000-of-00001.parquet")
    assert detect(tmp_path).name == "hardbug"
    assert [t.id for t in read(tmp_path).tasks] == ["py-demo-001"]


@pytest.mark.parametrize("name", ["rows.parquet", "rows.jsonl", "dir"])
def test_rows_round_trip(tmp_path: Path, name: str) -> None:
    original = pb.load("builtin:hardbug").tasks
    out = tmp_path / name
    write(original, out, "hardbug")
    again = read(out)
    assert not again.errors
    assert [t.model_copy(update={"source_format": ""}) for t in again.tasks] == [
        t.model_copy(update={"source_format": ""}) for t in original
    ]


def test_the_written_parquet_has_exactly_the_seed_columns_in_order(tmp_path: Path) -> None:
    write(pb.load("builtin:hardbug").tasks, tmp_path / "x.parquet", "hardbug")
    assert pq.read_schema(tmp_path / "x.parquet").names == list(COLUMNS)


def test_unknown_columns_are_kept_and_written_back(tmp_path: Path) -> None:
    src = tmp_path / "in.jsonl"
    src.write_text(json.dumps(dict(SEED_ROW, reviewer="ana", scores={"a": 1})) + "\n")
    out = tmp_path / "out.parquet"
    write(read(src).tasks, out, "hardbug")
    row = pq.read_table(out).to_pylist()[0]
    assert row["reviewer"] == "ana" and row["scores"] == {"a": 1}


def test_datasets_load_dataset_reads_our_output(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    datasets = pytest.importorskip("datasets")
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_DATASETS_CACHE", str(tmp_path / "hf-cache"))
    write(pb.load("builtin:hardbug").tasks, tmp_path / "ds", "hardbug")
    ds = datasets.load_dataset(str(tmp_path / "ds"), split="train", cache_dir=str(tmp_path / "hf-cache"))
    assert len(ds) == len(pb.load("builtin:hardbug").tasks)
    assert set(COLUMNS) <= set(ds.column_names)


def test_tasks_layout_round_trip(tmp_path: Path) -> None:
    original = pb.load("builtin:hardbug").tasks
    write(original, tmp_path, "hardbug-tasks")
    again = read(tmp_path)
    assert again.format == "hardbug-tasks"
    for a, b in zip(original, again.tasks, strict=True):
        assert a.model_dump(exclude={"source_format"}) == b.model_dump(exclude={"source_format"})
    # fixed/ is the workspace with the gold patch applied
    t = original[0]
    assert (tmp_path / "tasks" / t.id / "fixed").is_dir()


def test_tasks_layout_gold_patch_is_the_diff_from_repo_to_fixed(tmp_path: Path) -> None:
    d = tmp_path / "tasks" / "t1"
    (d / "repo").mkdir(parents=True)
    (d / "fixed").mkdir()
    (d / "tests").mkdir()
    (d / "repo" / "a.py").write_text("x = 1\n")
    (d / "fixed" / "a.py").write_text("x = 2\n")
    (d / "fixed" / "new.py").write_text("y = 1\n")
    (d / "tests" / "run.sh").write_text("echo 1..0\n")
    (d / "problem.md").write_text("p")
    (d / "meta.json").write_text(json.dumps({"task_id": "t1", "language": "python"}))
    (d / "run.json").write_text(json.dumps({"test_command": ["bash", "tests/run.sh"], "fail_to_pass": ["a"]}))
    t = read(tmp_path).tasks[0]
    assert "+x = 2" in (t.gold_patch or "") and "b/new.py" in (t.gold_patch or "")
    assert [f.path for f in t.hidden_tests] == ["tests/run.sh"]


def test_bad_rows_are_reported_by_id_and_the_rest_load(tmp_path: Path) -> None:
    bad1 = {k: v for k, v in SEED_ROW.items() if k != "test_command"} | {"task_id": "no-command"}
    bad2 = dict(SEED_ROW, task_id="evil-path", repo_files=[{"filename": "../x", "content": ""}])
    src = tmp_path / "rows.jsonl"
    src.write_text("\n".join(json.dumps(r) for r in (SEED_ROW, bad1, bad2)) + "\n")
    loaded = read(src)
    assert [t.id for t in loaded.tasks] == ["py-demo-001"]
    msgs = [str(e) for e in loaded.errors]
    assert len(msgs) == 2
    assert "no-command" in msgs[0] and "test_command" in msgs[0]
    assert "evil-path" in msgs[1] and "leaves the workspace" in msgs[1]
    assert all("\n" not in m for m in msgs)


def test_a_corrupt_parquet_is_one_clear_error(tmp_path: Path) -> None:
    p = tmp_path / "x.parquet"
    p.write_bytes(b"PAR1 not really")
    with pytest.raises(pb.DatasetError, match=r"x\.parquet"):
        read(p, "hardbug")


def test_a_path_in_no_known_format_is_a_clear_error(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("hi")
    with pytest.raises(pb.DatasetError, match="not a dataset in any known format"):
        detect(tmp_path / "notes.txt")
    with pytest.raises(pb.DatasetError, match="no such file"):
        detect(tmp_path / "missing")
