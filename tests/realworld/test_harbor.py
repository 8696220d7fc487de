"""The Harbor part of the real-world corpus (``scripts/realworld/build_harbor.py``, docs/realworld.md).

17 public Harbor tasks: 14 TermiGen environments whose workspace is not ``/app`` and 3 recipes of
Harbor's cookbook with ``solution/solve.sh``. An untouched workspace earns reward 0 on every one, with the
verifier reaching its tests; the cookbook's solutions, run as Harbor's oracle runs them, earn reward 1.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .conftest import corpus, one_per_task, patchbench

pytestmark = pytest.mark.realworld

BUILD = "python scripts/realworld/build_harbor.py"
COOKBOOK = "harbor-framework/harbor-cookbook"


@pytest.fixture(scope="module")
def harbor() -> Path:
    return corpus("harbor", BUILD)


@pytest.fixture(scope="module")
def sources(harbor: Path) -> dict[str, dict[str, str]]:
    tasks: dict[str, dict[str, str]] = json.loads((harbor / "SOURCE.json").read_text())["tasks"]
    return tasks


def test_the_corpus_is_the_recipes(sources: dict[str, dict[str, str]], harbor: Path) -> None:
    assert len(sources) == 17
    assert sorted(p.name for p in harbor.iterdir() if p.is_dir()) == sorted(sources)
    assert sum(s["repository"] == COOKBOOK for s in sources.values()) == 3


def test_an_untouched_workspace_earns_nothing(harbor: Path, sources: dict[str, dict[str, str]]) -> None:
    code, verdicts = patchbench(str(harbor), "--empty", "--expect", "unresolved", "-j", "1")
    for task_id, v in one_per_task(verdicts, list(sources)).items():
        assert v["status"] == "unresolved", f"{task_id}: {v['status']}: {v['reason']}"
        assert v["reward"] == 0.0
    assert code == 0


def test_the_cookbook_solutions_resolve(harbor: Path, sources: dict[str, dict[str, str]]) -> None:
    cookbook = sorted(t for t, s in sources.items() if s["repository"] == COOKBOOK)
    selected = [arg for t in cookbook for arg in ("-t", t)]
    code, verdicts = patchbench(str(harbor), *selected, "--solution", "-j", "1")
    for task_id, v in one_per_task(verdicts, cookbook).items():
        assert v["status"] == "resolved", f"{task_id}: {v['status']}: {v['reason']}"
        assert v["reward"] == 1.0
    assert code == 0


def test_tasks_without_a_solution_get_no_oracle(harbor: Path, sources: dict[str, dict[str, str]]) -> None:
    termigen = sorted(t for t, s in sources.items() if s["repository"] != COOKBOOK)
    selected = [arg for t in termigen for arg in ("-t", t)]
    code, verdicts = patchbench(str(harbor), *selected, "--solution", "--expect", "patch_failed", "-j", "1")
    assert {v["task_id"]: v["status"] for v in verdicts} == dict.fromkeys(termigen, "patch_failed")
    assert code == 0


def test_a_patch_that_writes_the_answer_resolves_the_simple_task(harbor: Path, tmp_path: Path) -> None:
    patch = tmp_path / "hello.diff"
    patch.write_text("--- /dev/null\n+++ b/hello.txt\n@@ -0,0 +1 @@\n+Hello, world!\n")
    code, verdicts = patchbench(str(harbor), "-t", "simple-task", "--patch", str(patch), "-j", "1")
    assert [(v["status"], v["reward"]) for v in verdicts] == [("resolved", 1.0)]
    assert code == 0
    wrong = tmp_path / "wrong.diff"
    wrong.write_text("--- /dev/null\n+++ b/hello.txt\n@@ -0,0 +1 @@\n+Hello, moon!\n")
    code, verdicts = patchbench(str(harbor), "-t", "simple-task", "--patch", str(wrong), "-j", "1")
    assert [(v["status"], v["reward"]) for v in verdicts] == [("unresolved", 0.0)]
    assert code == 1
