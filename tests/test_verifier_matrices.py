"""The seed matrices on the built-in Harbor tasks, end to end: repair, then run through the real harness.

Seed 000 (bugsinpy-style, repaired verifier): unmodified -> 0, empty /app -> 0, modified but not importable
-> 0, modified but tests fail -> 0, correct -> 1. Seed 003 (junit-style, default-fail Maven verifier):
empty /app -> 0, correct -> 1; the v1-style verifier scores 1 on an empty /app and the audit names its
three causes.
"""

from __future__ import annotations

import shutil

import pytest

import patchbench as pb
from patchbench import Candidate
from patchbench.audit.report import audit
from patchbench.repair import repair_dataset

HARBOR = {t.id: t for t in pb.load("builtin:harbor").tasks}
needs_java = pytest.mark.skipif(
    shutil.which("mvn") is None or shutil.which("javac") is None, reason="needs a JDK and Maven"
)


def reward(task: pb.Task, candidate: Candidate) -> float:
    return pb.run(task, candidate).reward


@pytest.fixture(scope="module")
def repaired() -> dict[str, pb.Task]:
    tasks, report = repair_dataset([HARBOR["bugsinpy-0001"], HARBOR["bugsinpy-0002"]])
    assert [(t.template, t.mode) for t in report.tasks] == [("python-single-file", "A")] * 2, report
    return {t.id: t for t in tasks}


@pytest.mark.slow
@pytest.mark.parametrize("task_id", ["bugsinpy-0001", "bugsinpy-0002"])
def test_seed_000_smoke_matrix_holds_under_the_repaired_verifier(
    repaired: dict[str, pb.Task], task_id: str
) -> None:
    task = repaired[task_id]
    buggy = task.workspace_map()["solution.py"]
    assert reward(task, Candidate.empty()) == 0.0  # unmodified
    assert reward(task, Candidate.wipe()) == 0.0  # empty /app
    assert reward(task, Candidate.files({"solution.py": buggy + "\ndef broken(:\n"})) == 0.0  # not importable
    assert reward(task, Candidate.files({"solution.py": buggy + "\n# touched\n"})) == 0.0  # tests still fail
    assert reward(task, Candidate.gold()) == 1.0  # correct


@pytest.mark.slow
def test_the_original_lenient_verifiers_lie_before_repair() -> None:
    """What repair fixes: the originals reward an empty /app (and 0002 even the buggy code)."""
    assert reward(HARBOR["bugsinpy-0001"], Candidate.wipe()) == 1.0
    assert reward(HARBOR["bugsinpy-0002"], Candidate.empty()) == 1.0


@pytest.mark.slow
@needs_java
def test_seed_003_matrix_holds_for_the_junit_task() -> None:
    task = HARBOR["junit-0001"]
    assert reward(task, Candidate.wipe()) == 0.0
    assert reward(task, Candidate.empty()) == 0.0
    assert reward(task, Candidate.gold()) == 1.0


@pytest.mark.slow
@needs_java
def test_the_v1_verifier_scores_an_empty_app_and_audit_names_its_three_causes() -> None:
    task = HARBOR["junit-0001-v1"]
    assert reward(task, Candidate.wipe()) == 1.0  # the lie
    report = audit([task], probes=False)
    codes = {f.code for f in report.tasks[0].findings if f.severity.value == "high"}
    assert codes == {"tee-masks-exit-code", "zero-tests-accepted", "trap-writes-positive-reward"}
