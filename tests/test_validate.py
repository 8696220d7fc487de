"""Validation: a clean dataset passes; each kind of broken task is caught with the right reason."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

import patchbench as pb
from patchbench import FileEntry, Task, TestCommand, TestSpec
from patchbench.engine import Ledger
from patchbench.formats import write
from patchbench.validate import apply_report, validate

# calc.py holds the bug; the TAP suite checks add() and a stable property.
CALC = "def add_numbers(a, b):\n    return a - b\n\n\ndef neg(a):\n    return -a\n"
SUITE = """
import os, sys
sys.path.insert(0, os.getcwd())
import calc
def check(name, ok):
    print(("ok" if ok else "not ok") + " - " + name)
print("1..2")
r1 = calc.add_numbers(2, 3) == 5
r2 = calc.neg(2) == -2
check("adds", r1)
check("negates", r2)
raise SystemExit(0 if r1 and r2 else 1)
"""
GOLD = (
    "--- a/calc.py\n+++ b/calc.py\n@@ -1,2 +1,2 @@\n def add_numbers(a, b):\n-    return a - b\n"
    "+    return a + b\n"
)


def calc_task(task_id: str = "calc", **update: object) -> Task:
    t = Task(
        id=task_id,
        prompt="Adding two amounts gives a wrong total: 2 and 3 give -1 instead of 5.",
        workspace=(FileEntry(path="calc.py", content=CALC),),
        hidden_tests=(FileEntry(path="tests/suite.py", content=SUITE),),
        test=TestSpec(commands=(TestCommand(argv=("python", "tests/suite.py")),), time_limit_s=60),
        fail_to_pass=("adds",),
        pass_to_pass=("negates",),
        gold_patch=GOLD,
    )
    return t.model_copy(update=update)


def kinds(report: pb.validate.ValidationReport, task_id: str) -> set[str]:  # type: ignore[name-defined]
    tr = next(t for t in report.tasks if t.task_id == task_id)
    return {p.kind for p in tr.problems}


def test_a_clean_task_passes_and_derives_its_lists() -> None:
    report = validate([calc_task()], repeat=2)
    tr = report.tasks[0]
    assert tr.ok, tr.problems
    assert tr.derived_fail_to_pass == ["adds"] and tr.derived_pass_to_pass == ["negates"]
    assert report.runs_executed == 6  # 2 empty + 2 gold + wipe + noop
    assert tr.canary == "none"  # a TAP script that is not a test_*.py module gets no canary


def test_each_kind_of_broken_task_is_caught_with_its_reason() -> None:
    broken = [
        calc_task("gold-fails", gold_patch=GOLD.replace("a + b", "a * b")),
        calc_task("f2p-passes-before", fail_to_pass=("adds", "negates"), pass_to_pass=()),
        calc_task("leaky", prompt="add_numbers returns a - b; it should return a + b."),
        calc_task("unknown-id", fail_to_pass=("adds", "no_such_test")),
        calc_task("extra-failure", fail_to_pass=(), pass_to_pass=("negates",)),
    ]
    report = validate(broken, repeat=2, jobs=2)
    assert "gold_not_resolved" in kinds(report, "gold-fails")
    assert "f2p_passes_before_fix" in kinds(report, "f2p-passes-before")
    leak = next(t for t in report.tasks if t.task_id == "leaky")
    assert {h.kind for h in leak.leaks} == {"names_symbol", "quotes_changed_line"}
    # add_numbers is what the failing test calls (a symptom, level none); the quoted fixed line leaks
    assert {(h.kind, h.level.value) for h in leak.leaks} == {
        ("names_symbol", "none"),
        ("quotes_changed_line", "leak"),
    }
    assert any(h.symbol == "add_numbers" for h in leak.leaks)
    assert [p.kind for p in next(t for t in report.tasks if t.task_id == "leaky").problems].count("leak") == 1
    unknown = next(
        p
        for t in report.tasks
        if t.task_id == "unknown-id"
        for p in t.problems
        if p.kind == "unknown_test_id"
    )
    assert unknown.tests == ["no_such_test"]
    extra = next(t for t in report.tasks if t.task_id == "extra-failure")
    assert extra.extra_failures == ["adds"] and "no_fail_to_pass" in {p.kind for p in extra.problems}
    assert report.failed == len(broken)
    assert next(t for t in report.tasks if t.task_id == "gold-fails").signal == "broken"


def test_a_flaky_test_is_caught_and_dropped(tmp_path: Path) -> None:
    """The flaky suite alternates its outcome with a counter on the host (hence the unsandboxed backend)."""
    counter = tmp_path / "counter"
    counter.write_text("0")
    flaky_suite = SUITE.replace(
        'check("negates", r2)',
        f'n = int(open({str(counter)!r}).read()); open({str(counter)!r}, "w").write(str(n + 1))\n'
        'check("negates", r2 and n % 2 == 0)\nr2 = r2 and n % 2 == 0',
    )
    task = calc_task("flaky", hidden_tests=(FileEntry(path="tests/suite.py", content=flaky_suite),))
    report = validate([task, calc_task("steady")], repeat=2, sandbox="none", probes=False)
    tr = next(t for t in report.tasks if t.task_id == "flaky")
    assert "flaky" in {p.kind for p in tr.problems}
    assert "negates" in tr.flaky_tests
    kept = apply_report([task, calc_task("steady")], report, derive=False, drop_flaky=True)
    assert [t.id for t in kept] == ["steady"]


def test_probes_catch_a_verifier_that_rewards_an_empty_workspace() -> None:
    """A suite that passes when calc.py is missing (it tests nothing real) is caught by the wipe probe."""
    lenient = "import os, sys\nsys.path.insert(0, os.getcwd())\nprint('1..1')\n"
    lenient += "print('ok - adds' if not os.path.exists('calc.py') or "
    lenient += "__import__('calc').add_numbers(2, 3) == 5 else 'not ok - adds')\n"
    task = calc_task(
        "lenient", hidden_tests=(FileEntry(path="tests/suite.py", content=lenient),), pass_to_pass=()
    )
    report = validate([task], repeat=1)
    assert "probe_rewarded" in kinds(report, "lenient")


def test_derive_writes_the_dataset_back_in_its_own_format(tmp_path: Path) -> None:
    task = calc_task(fail_to_pass=(), pass_to_pass=())
    report = validate([task], repeat=2, probes=False)
    out = tmp_path / "rows.jsonl"
    write(apply_report([task], report, derive=True, drop_flaky=False), out, "hardbug")
    again = pb.load(out).tasks[0]
    assert again.fail_to_pass == ("adds",) and again.pass_to_pass == ("negates",)


def test_the_ledger_reuses_unchanged_runs_and_recomputes_changed_tasks(tmp_path: Path) -> None:
    db = Ledger(tmp_path / "l.sqlite")
    first = validate([calc_task()], repeat=2, ledger=db)
    assert first.runs_executed == 6 and db.count() == 6
    again = validate([calc_task()], repeat=2, ledger=db, resume=True)
    assert again.runs_executed == 0 and again.runs_reused == 6
    changed = validate([calc_task(prompt="something else")], repeat=2, ledger=db, resume=True)
    assert changed.runs_executed == 6  # the task's content changed: nothing is stale-reused


@pytest.mark.slow
def test_kill_9_then_resume_recomputes_only_what_was_unfinished(tmp_path: Path) -> None:
    """A validation killed with SIGKILL loses only the runs in flight; --resume makes the rest."""
    slow_suite = "import time\ntime.sleep(0.4)\n" + SUITE
    tasks = [
        calc_task(f"slow-{i}", hidden_tests=(FileEntry(path="tests/suite.py", content=slow_suite),))
        for i in range(4)
    ]
    ds = tmp_path / "ds.jsonl"
    write(tasks, ds, "hardbug")
    ledger = tmp_path / "ledger.sqlite"
    cmd = [
        sys.executable,
        "-m",
        "patchbench.cli",
        "validate",
        str(ds),
        "-j",
        "1",
        "--report-dir",
        str(tmp_path),
        "--ledger",
        str(ledger),
        "--json",
    ]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    deadline = time.monotonic() + 120
    done = 0
    while time.monotonic() < deadline:
        if ledger.exists():
            try:
                with sqlite3.connect(ledger) as c:
                    done = c.execute("SELECT COUNT(*) FROM runs").fetchone()[0]
            except sqlite3.Error:
                done = 0
        if done >= 6:
            break
        time.sleep(0.1)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    with sqlite3.connect(ledger) as c:
        stored = c.execute("SELECT COUNT(*) FROM runs").fetchone()[0]
    total = 4 * 6
    assert 6 <= stored < total, "the kill must land mid-validation"
    r = subprocess.run([*cmd, "--resume"], capture_output=True, text=True, timeout=300)
    report = json.loads(r.stdout)
    assert report["runs_reused"] == stored
    assert report["runs_executed"] == total - stored
    assert report["failed"] == 0 and r.returncode == 0
