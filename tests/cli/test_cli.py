"""The command line: tables, --json, exit codes, one-line errors."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

import patchbench as pb
from patchbench.cli import app

runner = CliRunner()
BUILTIN = [t.id for t in pb.load("builtin").tasks]


def invoke(*args: str) -> tuple[int, str, str]:
    r = runner.invoke(app, list(args))
    return r.exit_code, r.stdout, r.stderr


def test_tasks_json_lists_the_builtin_dataset() -> None:
    code, out, _ = invoke("tasks", "builtin", "--json")
    assert code == 0
    data = json.loads(out)
    assert [t["id"] for t in data["tasks"]] == BUILTIN
    assert data["errors"] == []


def test_show_json_is_the_task() -> None:
    code, out, _ = invoke("show", "builtin", BUILTIN[0], "--json")
    assert code == 0
    assert pb.Task.model_validate(json.loads(out)).id == BUILTIN[0]


def test_bad_input_is_one_line_and_exit_2(tmp_path: Path) -> None:
    code, _, err = invoke("run", "builtin", "--task", "no-such-task", "--gold")
    assert code == 2 and "no task with id no-such-task" in err and "Traceback" not in err
    code, _, err = invoke("tasks", str(tmp_path / "missing"))
    assert code == 2 and "no such file" in err
    code, _, err = invoke("run", "builtin", "--gold", "--empty")
    assert code == 2 and "exactly one candidate" in err
    code, _, err = invoke("run", "builtin", "--patch", str(tmp_path / "nope.diff"))
    assert code == 2 and "cannot read patch" in err


def test_convert_round_trips_through_the_cli(tmp_path: Path) -> None:
    code, _, _ = invoke("convert", "builtin", str(tmp_path / "rows.parquet"), "--to", "hardbug")
    assert code == 0
    code, out, _ = invoke("tasks", str(tmp_path / "rows.parquet"), "--json")
    assert [t["id"] for t in json.loads(out)["tasks"]] == BUILTIN


def test_validate_leak_level_hint_fails_a_task_whose_prompt_only_hints(tmp_path: Path) -> None:
    """sf-gcd-recursion quotes the traceback of its buggy code: a hint, which breaks the task only with
    --leak-level hint."""
    fixture = Path(__file__).parents[1] / "fixtures" / "leak" / "single-function"
    args = ["validate", str(fixture), "-t", "sf-gcd-recursion", "--repeat", "1", "--no-probes", "--json"]
    code, out, _ = invoke(*args, "--report-dir", str(tmp_path / "default"))
    assert code == 0, out
    [task] = json.loads(out)["tasks"]
    assert task["ok"] and task["leak_level"] == "hint"
    assert {h["level"] for h in task["leaks"]} == {"none", "hint"}
    code, out, _ = invoke(*args, "--leak-level", "hint", "--report-dir", str(tmp_path / "strict"))
    assert code == 1
    [task] = json.loads(out)["tasks"]
    assert [p["kind"] for p in task["problems"]] == ["leak_hint"]
    code, _, _ = invoke(*args, "--leak-level", "none", "--report-dir", str(tmp_path / "bad"))
    assert code == 2


def test_run_solution_runs_the_harbor_solve_sh(tmp_path: Path) -> None:
    task = tmp_path / "ds" / "answer-task"
    files = {
        "task.toml": 'version = "1.0"\n',
        "instruction.md": "Write 42 to /workspace/answer.txt.\n",
        "environment/Dockerfile": "FROM ubuntu:24.04\nRUN mkdir -p /workspace\nWORKDIR /workspace\n",
        "tests/test.sh": "#!/bin/bash\nmkdir -p /logs/verifier\n"
        'if [ "$(cat /workspace/answer.txt 2>/dev/null)" = 42 ]; then echo 1; else echo 0; fi'
        " > /logs/verifier/reward.txt\n",
        "solution/solve.sh": "#!/bin/bash\necho 42 > answer.txt\n",
    }
    for rel, text in files.items():
        (task / rel).parent.mkdir(parents=True, exist_ok=True)
        (task / rel).write_text(text)
    code, out, _ = invoke("run", str(tmp_path / "ds"), "--solution", "--json")
    assert code == 0, out
    assert json.loads(out)[0]["status"] == "resolved"
    (task / "solution" / "solve.sh").unlink()
    code, out, _ = invoke("run", str(tmp_path / "ds"), "--solution", "--json")
    assert code == 1 and json.loads(out)[0]["status"] == "patch_failed"


def test_run_suspicious_reject_by_default_and_report(tmp_path: Path) -> None:
    """The gold fix plus a module that reads its caller's frame: rejected (the default), or resolved with
    the finding as evidence under ``--suspicious report``."""
    task = next(t for t in pb.load("builtin").tasks if t.id == "py-interval-touching-merge")
    probe = "--- /dev/null\n+++ b/freebusy/probe.py\n@@ -0,0 +1,2 @@\n+import sys\n+F = sys._getframe\n"
    patch = tmp_path / "fix.diff"
    patch.write_text((task.gold_patch or "") + probe)
    args = ("run", "builtin", "-t", task.id, "--patch", str(patch), "--json")
    code, out, _ = invoke(*args, "--suspicious", "report")
    assert code == 0, out
    (v,) = json.loads(out)
    assert v["suspicious"] == [
        {
            "code": "stack-introspection",
            "path": "freebusy/probe.py",
            "line": 2,
            "evidence": "F = sys._getframe",
        }
    ]
    assert v["screened"] is False
    code, out, _ = invoke(*args)
    (r,) = json.loads(out)
    assert code == 1 and r["status"] == "unresolved" and r["screened"] is True
    assert "stack-introspection at freebusy/probe.py:2" in r["reason"]
    code, _, _ = invoke("run", "builtin", "-t", task.id, "--gold", "--suspicious", "maybe")
    assert code == 2
