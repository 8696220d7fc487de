"""The command line's `run`: candidates of every kind on the built-in dataset, JSON verdicts, exit codes.

Apart from ``test_cli.py`` so that these sandboxed runs land on their own xdist worker (the suite runs
``--dist loadfile``: a module stays on one worker).
"""

from __future__ import annotations

import json
from pathlib import Path

from test_cli import BUILTIN, invoke  # tests/cli is on sys.path (pytest's rootdir-less import)

import patchbench as pb


def test_run_gold_json_exits_0_and_empty_exits_1() -> None:
    code, out, _ = invoke("run", "builtin", "--task", BUILTIN[0], "--gold", "--json")
    assert code == 0
    assert json.loads(out)[0]["status"] == "resolved"
    code, out, _ = invoke("run", "builtin", "--task", BUILTIN[0], "--empty", "--json")
    assert code == 1
    assert json.loads(out)[0]["status"] == "unresolved"
    code, _, _ = invoke("run", "builtin", "--task", BUILTIN[0], "--empty", "--expect", "unresolved")
    assert code == 0


def test_run_writes_verdicts_jsonl(tmp_path: Path) -> None:
    out = tmp_path / "v.jsonl"
    code, _, _ = invoke("run", "builtin", "--task", BUILTIN[0], "--gold", "-o", str(out))
    assert code == 0
    v = pb.Verdict.model_validate_json(out.read_text().splitlines()[0])
    assert v.resolved and v.task_id == BUILTIN[0]


def test_run_with_a_patch_file_and_a_directory(tmp_path: Path) -> None:
    task = pb.load("builtin").tasks[0]
    patch = tmp_path / "fix.diff"
    patch.write_text(task.gold_patch or "")
    code, out, _ = invoke("run", "builtin", "-t", task.id, "--patch", str(patch), "--json")
    assert code == 0, out
    # an edited directory: the buggy workspace, unchanged -> unresolved
    d = tmp_path / "ws"
    for f in task.workspace:
        (d / f.path).parent.mkdir(parents=True, exist_ok=True)
        (d / f.path).write_text(f.content)
    code, out, _ = invoke("run", "builtin", "-t", task.id, "--dir", str(d), "--json")
    assert code == 1 and json.loads(out)[0]["status"] == "unresolved"


def test_run_dir_is_one_candidate_for_a_batch_with_jobs(tmp_path: Path) -> None:
    """--dir used to run one task at a time and ignore --jobs; it is now a candidate kind like the others."""
    first, second = pb.load("builtin").tasks[:2]
    d = tmp_path / "ws"
    for f in first.workspace:
        (d / f.path).parent.mkdir(parents=True, exist_ok=True)
        (d / f.path).write_text(f.content)
    code, out, _ = invoke(
        "run", "builtin", "-t", first.id, "-t", second.id, "--dir", str(d), "-j", "2", "--json"
    )
    verdicts = {v["task_id"]: v for v in json.loads(out)}
    assert code == 1 and set(verdicts) == {first.id, second.id}
    # the first task's own buggy files: nothing changed; the second's files all deleted: neither passes
    assert {v["status"] for v in verdicts.values()} == {"unresolved"}
    assert {v["candidate"] for v in verdicts.values()} == {"ws"}


def test_a_dataset_with_a_bad_row_still_runs_the_others(tmp_path: Path) -> None:
    rows = tmp_path / "rows.jsonl"
    pb.formats.write(pb.load("builtin").tasks[:1], rows, "hardbug")
    good = rows.read_text()
    rows.write_text(good + json.dumps({"task_id": "broken"}) + "\n")
    code, out, _ = invoke("run", str(rows), "--gold", "--json")
    statuses = {v["task_id"]: v["status"] for v in json.loads(out)}
    assert statuses == {BUILTIN[0]: "resolved", "broken": "bad_task"}
    assert code == 1


def test_sandbox_none_warns_loudly() -> None:
    code, _, err = invoke("run", "builtin", "-t", BUILTIN[0], "--gold", "--sandbox", "none", "--json")
    assert code == 0
    assert "SANDBOX DISABLED" in err
