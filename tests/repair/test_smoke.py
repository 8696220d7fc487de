"""Seed 000's smoke matrix through the real harness (patchbench.run, bwrap) on repaired bugsinpy-style tasks.

unmodified buggy -> 0; empty /app -> 0; modified but not importable -> 0; modified but tests still fail
-> 0; modified and all tests pass -> 1. And for a mode-B task (unrepairable tests): any modified,
compiling, importable solution -> 1, everything else -> 0.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import patchbench
from patchbench.api import load
from patchbench.candidate import Candidate
from patchbench.formats import write
from patchbench.repair import repair_dataset
from patchbench.task import Task
from patchbench.verdict import Status

FIXTURES = Path(__file__).parent.parent / "fixtures" / "repair"
DEMO = FIXTURES / "bugsinpy-demo"
CORPUS = FIXTURES / "corpus"

CORRECT = (
    "def median(xs):\n    s = sorted(xs)\n    n = len(s)\n    if n % 2:\n        return s[n // 2]\n"
    "    return (s[n // 2 - 1] + s[n // 2]) / 2\n"
)
STILL_BUGGY = "def median(xs):\n    return sorted(xs)[len(xs) // 2]  # reformatted, same bug\n"

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def tasks(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Task]:
    """The broken tasks as given (``raw-*``) and as repaired and written back to disk (``*``)."""
    root = tmp_path_factory.mktemp("smoke")
    ds = root / "in"
    ds.mkdir()
    # every defect of the corpus at once, in one test file, and no baked-in baseline in the Dockerfile
    shutil.copytree(DEMO, ds / "demo-broken")
    broken = (
        "Here are the tests:\n\n```python\nfrom typing import Enum\n\n\nclass Kind(Enum):\n    ODD = 1\n\n\n"
        "@pytest.main()\ndef test_odd():\n    assert median([3, 1, 2]) == 2\n"
        "    assert len(b'caf\u00e9') == 4\n\n\n"
        "def test_even():\n    assert math.isclose(median([4, 1, 2, 3]), 2.5)\n```\n"
    )
    (ds / "demo-broken" / "tests" / "test_solution.py").write_text(broken)
    docker = ds / "demo-broken" / "environment" / "Dockerfile"
    docker.write_text("".join(ln for ln in docker.read_text().splitlines(True) if "buggy_solution" not in ln))
    shutil.copytree(DEMO, ds / "demo-await")
    shutil.copy(CORPUS / "unrepairable_await.py", ds / "demo-await" / "tests" / "test_solution.py")
    loaded = load(ds)
    repaired, report = repair_dataset(loaded.tasks)
    modes = {t.task_id: t.mode for t in report.tasks}
    assert modes == {"demo-await": "B", "demo-broken": "A"}
    write(repaired, root / "out", loaded.format)
    out = {t.id: t for t in load(root / "out").tasks}
    out.update({f"raw-{t.id}": t for t in loaded.tasks})
    return out


MATRIX = {
    "unmodified buggy": (Candidate.empty(), 0.0),
    "empty /app": (Candidate.wipe(), 0.0),
    "not importable": (Candidate.files({"solution.py": "import no_such_module\n" + CORRECT}), 0.0),
    "tests still fail": (Candidate.files({"solution.py": STILL_BUGGY}), 0.0),
    "all tests pass": (Candidate.files({"solution.py": CORRECT}), 1.0),
}


@pytest.mark.parametrize("case", list(MATRIX))
def test_mode_a_smoke_matrix(tasks: dict[str, Task], case: str) -> None:
    candidate, expected = MATRIX[case]
    v = patchbench.run(tasks["demo-broken"], candidate)
    assert v.status in (Status.RESOLVED, Status.UNRESOLVED), v
    assert v.reward == expected, (case, v.reason, v.stdout_tail)
    if case == "all tests pass":
        assert v.pass_ratio == 1.0 and v.status is Status.RESOLVED
    if case == "tests still fail":
        assert v.pass_ratio == 0.5


def test_the_broken_task_could_not_reward_a_correct_fix_before_repair(tasks: dict[str, Task]) -> None:
    v = patchbench.run(tasks["raw-demo-broken"], Candidate.files({"solution.py": CORRECT}))
    assert v.reward == 0.0


@pytest.mark.parametrize(
    ("case", "expected"),
    [("unmodified buggy", 0.0), ("empty /app", 0.0), ("not importable", 0.0), ("tests still fail", 1.0)],
)
def test_mode_b_smoke_matrix(tasks: dict[str, Task], case: str, expected: float) -> None:
    candidate, _ = MATRIX[case]
    v = patchbench.run(tasks["demo-await"], candidate)
    assert v.reward == expected, (case, v.reason, v.stdout_tail)
