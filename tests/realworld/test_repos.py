"""The repository rows of the real-world corpus (``scripts/realworld/build_repos.py``, docs/realworld.md).

Seven upstream fix commits, one row each: the gold patch must resolve every row and the untouched buggy
tree must resolve none, through the command line a user runs (``patchbench run ROWS --repos MIRRORS``).
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

import patchbench as pb

from .conftest import ROOT, corpus, one_per_task, patchbench

pytestmark = pytest.mark.realworld

BUILD = "python scripts/realworld/build_repos.py"


@pytest.fixture(scope="module")
def recipe() -> ModuleType:
    """``scripts/realworld/build_repos.py`` as a module: its ``ROWS`` and ``is_test_path``."""
    spec = importlib.util.spec_from_file_location("build_repos", ROOT / "scripts/realworld/build_repos.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def repos() -> Path:
    return corpus("repos", BUILD)


@pytest.fixture(scope="module")
def rows(repos: Path) -> list[pb.Task]:
    loaded = pb.load(repos / "rows")
    assert loaded.errors == []
    return loaded.tasks


@pytest.fixture(scope="module")
def gold(repos: Path) -> tuple[int, list[dict[str, Any]]]:
    return patchbench(str(repos / "rows"), "--repos", str(repos / "mirrors"), "--gold", "-j", "1")


@pytest.fixture(scope="module")
def empty(repos: Path) -> tuple[int, list[dict[str, Any]]]:
    return patchbench(
        str(repos / "rows"), "--repos", str(repos / "mirrors"), "--empty", "--expect", "unresolved", "-j", "1"
    )


def test_one_row_per_fix_commit_of_the_recipe(rows: list[pb.Task], repos: Path, recipe: ModuleType) -> None:
    assert [t.id for t in rows] == [r.id for r in recipe.ROWS]
    for task, row in zip(rows, recipe.ROWS, strict=True):
        assert task.repository is not None
        assert task.repository.repo == row.repo
        mirror = repos / "mirrors" / f"{row.repo}.git"
        parent = subprocess.run(
            ["git", f"--git-dir={mirror}", "rev-parse", f"{row.fix}^"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        assert task.repository.base_commit == parent
        assert task.env.setup_cmds == row.setup
        assert task.fail_to_pass, task.id
        assert task.hidden_tests and all(recipe.is_test_path(f.path) for f in task.hidden_tests)
        touched = [
            line[len("+++ b/") :]
            for line in (task.gold_patch or "").splitlines()
            if line.startswith("+++ b/")
        ]
        assert touched and not any(recipe.is_test_path(p) for p in touched), touched


def test_gold_resolves_every_row(gold: tuple[int, list[dict[str, Any]]], rows: list[pb.Task]) -> None:
    code, verdicts = gold
    for task_id, v in one_per_task(verdicts, [t.id for t in rows]).items():
        assert v["status"] == "resolved", f"{task_id}: {v['status']}: {v['reason']}"
        assert v["reward"] == 1.0
        assert all(c["passed"] for c in v["fail_to_pass"] + v["pass_to_pass"])
    assert code == 0


def test_the_buggy_tree_resolves_no_row(empty: tuple[int, list[dict[str, Any]]], rows: list[pb.Task]) -> None:
    code, verdicts = empty
    for task_id, v in one_per_task(verdicts, [t.id for t in rows]).items():
        assert v["status"] == "unresolved", f"{task_id}: {v['status']}: {v['reason']}"
        assert v["reward"] == 0.0
        # Unresolved for the bug alone: every F2P test failed or is missing, every P2P test passed.
        assert v["fail_to_pass"] and not any(c["passed"] for c in v["fail_to_pass"]), task_id
        assert all(c["passed"] for c in v["pass_to_pass"]), task_id
    assert code == 0
