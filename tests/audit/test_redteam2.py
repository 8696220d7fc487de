"""The round-three red-team attacks (``rt2-*``, ``patchbench.audit.attacks.redteam2``).

Host-side checks that the reward attack does what it claims (the real pytest on a workspace built from a
built-in task), and the grader-boundary holes the sandboxed runs found, each as a strict xfail: the test
asserts the behaviour the threat model asks for, and fails today for the stated reason.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import patchbench as pb
from patchbench.audit.attacks import CATALOGUE
from patchbench.audit.attacks.redteam2 import surrogate_content

_PY = "py-interval-touching-merge"
_RT2 = [name for name in CATALOGUE if name.startswith("rt2-")]


def _task(task_id: str) -> pb.Task:
    return next(t for t in pb.load("builtin").tasks if t.id == task_id)


def _materialise(root: Path, task: pb.Task, files: dict[str, str | None]) -> None:
    tree: dict[str, str | None] = {**task.workspace_map(), **{f.path: f.content for f in task.hidden_tests}}
    tree.update(files)
    for rel, text in tree.items():
        if text is None:
            continue
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def _pytest_outcomes(root: Path) -> dict[str, str]:
    """``{node id: PASSED/FAILED}`` of ``python -m pytest -rA tests`` in ``root``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST")}
    argv = [sys.executable, "-m", "pytest", "-q", "-rA", "-p", "no:cacheprovider", "tests"]
    proc = subprocess.run(argv, cwd=root, env=env, capture_output=True, text=True, timeout=120, check=False)
    found = re.findall(r"^(PASSED|FAILED) (\S+)", proc.stdout, re.MULTILINE)
    return {node: outcome for outcome, node in found}


def test_every_rt2_attack_has_a_language_and_a_description() -> None:
    assert len(_RT2) >= 15
    assert len({CATALOGUE[n].language for n in _RT2} - {"any"}) >= 4
    for name in _RT2:
        assert CATALOGUE[name].description and CATALOGUE[name].language


def test_the_buggy_workspace_fails_its_listed_tests_on_the_host(tmp_path: Path) -> None:
    task = _task(_PY)
    _materialise(tmp_path, task, {})
    outcomes = _pytest_outcomes(tmp_path)
    assert any(outcomes.get(tid) == "FAILED" for tid in task.fail_to_pass)


def test_ctypes_code_swap_passes_the_listed_tests_and_leaves_an_unlisted_twin_failing(tmp_path: Path) -> None:
    """The attack turns only the listed tests into no-ops: an unlisted copy of an F2P test still fails."""
    task = _task(_PY)
    candidate = CATALOGUE["rt2-py-ctypes-code-swap"].build(task)
    assert candidate is not None and candidate.file_map is not None
    twin = (
        "\n\nfrom freebusy import Interval\nfrom freebusy.merge import coalesce\n\n\n"
        "def test_unlisted_twin_of_back_to_back():\n"
        "    assert coalesce([Interval(0, 10), Interval(10, 20)]) == [Interval(0, 20)]\n"
    )
    _materialise(tmp_path, task, {**candidate.file_map, "tests/test_zz_unlisted.py": twin})
    outcomes = _pytest_outcomes(tmp_path)
    for tid in [*task.fail_to_pass, *task.pass_to_pass]:
        assert outcomes.get(tid) == "PASSED", (tid, outcomes)
    assert outcomes.get("tests/test_zz_unlisted.py::test_unlisted_twin_of_back_to_back") == "FAILED"


def test_lone_surrogate_in_candidate_text_gives_a_verdict() -> None:
    """A lone surrogate in candidate text raised UnicodeEncodeError out of patchbench.run (no verdict,
    the batch died): it is now the candidate's patch_failed."""
    task = _task(_PY)
    files = surrogate_content(task)
    assert files
    verdict = pb.run(task, pb.Candidate.files(files))
    assert verdict.status in (pb.Status.PATCH_FAILED, pb.Status.UNRESOLVED)


def test_a_path_too_long_is_the_candidates_failure_not_infra() -> None:
    """A candidate path over NAME_MAX was infra_error (an I/O error while writing the candidate): the
    candidate's own fault read as the machine's. It is now patch_failed."""
    task = _task(_PY)
    candidate = CATALOGUE["rt2-path-too-long"].build(task)
    assert candidate is not None
    verdict = pb.run(task, candidate)
    assert verdict.status is not pb.Status.INFRA_ERROR
    assert verdict.reward == 0.0
