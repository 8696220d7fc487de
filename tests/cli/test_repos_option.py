"""``--repos DIR`` on the command line: every command and every candidate kind reads the local mirrors.

Regression (issue 11): ``patchbench run DATASET --repos DIR --gold`` (and ``--patch``, ``--empty``) dropped
``--repos``; only ``--dir`` passed it on, so a repository row ended ``infra_error`` with an error that told
the user to "Pass --repos DIR". ``audit`` had no ``--repos`` at all.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner

from conftest import GIT_ENV
from conftest import git as _git
from patchbench import EnvSpec, FileEntry, Repository, Task, TestCommand, TestSpec
from patchbench.cli import app
from patchbench.formats import write

runner = CliRunner()

BUGGY = "def scale(x):\n    return x * 2\n"
FIXED = "def scale(x):\n    return x * 3\n"
HELPER = "from calc.core import scale\n\n\ndef triple_all(xs):\n    return [scale(x) for x in xs]\n"
SUITE = """import os, sys
sys.path.insert(0, os.getcwd())
from calc.api import triple_all
print("1..2")
print("ok 1 - lists" if triple_all([]) == [] else "not ok 1 - lists")
r = triple_all([1, 2]) == [3, 6]
print("ok 2 - triples" if r else "not ok 2 - triples")
sys.exit(0 if r else 1)
"""
GOLD = (
    "--- a/calc/core.py\n+++ b/calc/core.py\n@@ -1,2 +1,2 @@\n def scale(x):\n-    return x * 2\n"
    "+    return x * 3\n"
)


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A dataset with one repository row, and a local repository directory holding its only mirror."""
    top = tmp_path_factory.mktemp("repos-option")
    repo = top / "calc"
    (repo / "calc").mkdir(parents=True)
    (repo / "calc" / "__init__.py").write_text("")
    (repo / "calc" / "core.py").write_text(BUGGY)
    (repo / "calc" / "api.py").write_text(HELPER)
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "buggy")
    base = _git(repo, "rev-parse", "HEAD")
    mirrors = top / "mirrors"
    (mirrors / "nobody-pb-test").mkdir(parents=True)
    subprocess.run(
        ["git", "clone", "-q", "--mirror", str(repo), str(mirrors / "nobody-pb-test" / "calc.git")],
        check=True,
        env=GIT_ENV,
    )
    task = Task(
        id="repo-row",
        prompt="Tripling a list doubles it.",
        repository=Repository(repo="nobody-pb-test/calc", base_commit=base),
        context_files=(FileEntry(path="calc/core.py", content=BUGGY),),
        hidden_tests=(FileEntry(path="tests/suite.py", content=SUITE),),
        test=TestSpec(commands=(TestCommand(shell="python tests/suite.py"),)),
        env=EnvSpec(language="python"),
        fail_to_pass=("triples",),
        pass_to_pass=("lists",),
        gold_patch=GOLD,
    )
    ds = top / "ds"
    write([task], ds, "patchbench")
    return ds, mirrors


@pytest.fixture(autouse=True)
def _private_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A fresh cache and no $PATCHBENCH_REPOS, so only ``--repos`` can supply the repository."""
    monkeypatch.setenv("PATCHBENCH_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("PATCHBENCH_REPOS", raising=False)


def _run(*args: str) -> tuple[int, list[dict[str, object]]]:
    r = runner.invoke(app, ["run", *args, "--json"])
    return r.exit_code, json.loads(r.stdout)


def _from_local_mirror(v: dict[str, object]) -> bool:
    notes = v["notes"]
    assert isinstance(notes, list)
    return any("local " in str(n) and "calc.git" in str(n) for n in notes)


def _candidate_args(kind: str, tmp_path: Path) -> list[str]:
    if kind == "patch":
        (tmp_path / "fix.diff").write_text(GOLD)
        return ["--patch", str(tmp_path / "fix.diff")]
    if kind == "dir":
        # An edited copy of the whole repository.
        (tmp_path / "edited" / "calc").mkdir(parents=True)
        (tmp_path / "edited" / "calc" / "__init__.py").write_text("")
        (tmp_path / "edited" / "calc" / "api.py").write_text(HELPER)
        (tmp_path / "edited" / "calc" / "core.py").write_text(FIXED)
        return ["--dir", str(tmp_path / "edited")]
    if kind == "files":
        # A directory holding only the changed file: the other repository files are kept as they are.
        (tmp_path / "only" / "calc").mkdir(parents=True)
        (tmp_path / "only" / "calc" / "core.py").write_text(FIXED)
        return ["--dir", str(tmp_path / "only")]
    return [f"--{kind}"]


@pytest.mark.parametrize(
    ("kind", "status"),
    [
        ("gold", "resolved"),
        ("patch", "resolved"),
        ("dir", "resolved"),
        ("files", "resolved"),
        ("empty", "unresolved"),
        ("wipe", "no_tests"),
    ],
)
def test_run_reads_the_repository_from_repos_for_every_candidate_kind(
    world: tuple[Path, Path], tmp_path: Path, kind: str, status: str
) -> None:
    """Each candidate kind runs against the mirror named by ``--repos`` (the source is in the notes)."""
    ds, mirrors = world
    code, verdicts = _run(str(ds), "--repos", str(mirrors), *_candidate_args(kind, tmp_path))
    (v,) = verdicts
    assert v["status"] == status, v["reason"]
    assert code == (0 if status == "resolved" else 1)
    assert _from_local_mirror(v)


def test_run_without_repos_names_the_option_it_needs(world: tuple[Path, Path], tmp_path: Path) -> None:
    """Without ``--repos`` the row is an infra error whose advice (pass --repos) is what fixes it."""
    ds, mirrors = world
    code, (v,) = _run(str(ds), "--gold")
    assert code == 3 and v["status"] == "infra_error"
    assert "Pass --repos DIR" in str(v["reason"])
    code, (v,) = _run(str(ds), "--gold", "--repos", str(mirrors))
    assert code == 0 and v["status"] == "resolved"


def test_validate_reads_the_repository_from_repos(world: tuple[Path, Path], tmp_path: Path) -> None:
    ds, mirrors = world
    r = runner.invoke(
        app,
        [
            *("validate", str(ds), "--repos", str(mirrors), "--repeat", "1", "--no-leak"),
            *("--report-dir", str(tmp_path / "report"), "--json"),
        ],
    )
    assert r.exit_code == 0, r.stdout
    report = json.loads((tmp_path / "report" / "validation_report.json").read_text())
    assert "infra_error" not in json.dumps(report)


def test_audit_attacks_read_the_repository_from_repos(world: tuple[Path, Path], tmp_path: Path) -> None:
    """The battery's gold run needs the repository: without ``--repos`` it is lost, with it resolved."""
    ds, mirrors = world
    args = ["audit", str(ds), "--attack", "py-sys-exit-at-import", "--json"]
    # First without (a checkout, once cached, no longer needs the mirror), then with ``--repos``.
    r = runner.invoke(app, [*args, "--report-dir", str(tmp_path / "b")])
    assert r.exit_code == 1
    assert json.loads(r.stdout)["attacks"]["summary"]["gold_lost"] == 1
    r = runner.invoke(app, [*args, "--report-dir", str(tmp_path / "a"), "--repos", str(mirrors)])
    assert r.exit_code == 0, r.stdout
    summary = json.loads(r.stdout)["attacks"]["summary"]
    assert (summary["gold_run"], summary["gold_resolved"]) == (1, 1), summary
