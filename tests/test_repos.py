"""Repository workspaces (PatchBench rows): the whole repository at base_commit, not the context slice."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

import patchbench as pb
from conftest import GIT_ENV
from patchbench import Candidate, EnvSpec, FileEntry, Repository, Status, Task, TestCommand, TestSpec
from patchbench.checkouts import RepoCache
from patchbench.formats import write

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


def git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=repo, env=GIT_ENV, check=True, capture_output=True, text=True
    ).stdout.strip()


@pytest.fixture(scope="module")
def origin(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, str]:
    """A multi-file repository with history: base (buggy) and a later fix commit."""
    repo = tmp_path_factory.mktemp("origin") / "calc"
    (repo / "calc").mkdir(parents=True)
    (repo / "calc" / "__init__.py").write_text("")
    (repo / "calc" / "core.py").write_text("def scale(x):\n    return x\n")
    (repo / "calc" / "api.py").write_text(HELPER)
    (repo / "README.md").write_text("calc\n")
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "first")
    (repo / "calc" / "core.py").write_text(BUGGY)
    git(repo, "commit", "-q", "-am", "second (buggy)")
    base = git(repo, "rev-parse", "HEAD")
    (repo / "calc" / "core.py").write_text(FIXED)
    git(repo, "commit", "-q", "-am", "the fix (a future commit)")
    fix = git(repo, "rev-parse", "HEAD")
    git(repo, "tag", "v2")
    return repo, base, fix


@pytest.fixture
def mirrors(origin: tuple[Path, str, str], tmp_path: Path) -> Path:
    """A local repository cache holding a bare mirror at owner/name.git."""
    repo, _, _ = origin
    d = tmp_path / "repos"
    (d / "acme").mkdir(parents=True)
    subprocess.run(
        ["git", "clone", "-q", "--mirror", str(repo), str(d / "acme" / "calc.git")], check=True, env=GIT_ENV
    )
    return d


def row(base: str, **update: object) -> Task:
    gold = (
        "--- a/calc/core.py\n+++ b/calc/core.py\n@@ -1,2 +1,2 @@\n def scale(x):\n-    return x * 2\n"
        "+    return x * 3\n"
    )
    t = Task(
        id="patchbench-python-real-0001",
        prompt="Tripling a list doubles it instead.",
        repository=Repository(repo="acme/calc", base_commit=base),
        context_files=(FileEntry(path="calc/core.py", content=BUGGY),),  # the slice: only the buggy file
        buggy_files=("calc/core.py",),
        hidden_tests=(FileEntry(path="tests/suite.py", content=SUITE),),
        test=TestSpec(commands=(TestCommand(shell="python tests/suite.py"),)),
        env=EnvSpec(language="python"),
        fail_to_pass=("triples",),
        pass_to_pass=("lists",),
        gold_patch=gold,
    )
    return t.model_copy(update=update)


def test_a_patchbench_row_runs_against_the_whole_repository(
    origin: tuple[Path, str, str], mirrors: Path, tmp_path: Path
) -> None:
    """The suite imports calc.api, which is not in context_files: only the full checkout can pass."""
    _, base, _ = origin
    ds = tmp_path / "ds"
    write([row(base)], ds, "patchbench")
    task = pb.load(ds).tasks[0]
    assert task.repository == Repository(repo="acme/calc", base_commit=base) and task.workspace == ()
    cache = tmp_path / "cache"
    gold = pb.run(task, Candidate.gold(), repos=[mirrors], cache_dir=cache)
    assert gold.status is Status.RESOLVED, gold.reason
    assert any("local " in n and "calc.git" in n for n in gold.notes)
    empty = pb.run(task, Candidate.empty(), repos=[mirrors], cache_dir=cache)
    assert empty.status is Status.UNRESOLVED
    assert [(c.id, c.passed) for c in empty.fail_to_pass] == [("triples", False)]


def test_the_candidate_cannot_see_commits_after_base_commit(
    origin: tuple[Path, str, str], mirrors: Path, tmp_path: Path
) -> None:
    """Future-commit leakage: the workspace's git history ends at base_commit; the fix and tags are gone."""
    _, base, fix = origin
    probe = (
        "git log --all --format=%H > seen.txt; git tag > tags.txt; "
        f"git cat-file -e {fix} 2>/dev/null && echo LEAK > leak.txt; echo 1..1; echo ok 1 - probe"
    )
    task = row(
        base, test=TestSpec(commands=(TestCommand(shell=probe),)), fail_to_pass=(), pass_to_pass=("probe",)
    )
    v = pb.run(task, Candidate.empty(), repos=[mirrors], cache_dir=tmp_path / "cache", keep=True)
    ws = (
        Path(next(n for n in v.notes if n.startswith("run directory kept: ")).split(": ", 1)[1]) / "workspace"
    )
    seen = (ws / "seen.txt").read_text().split()
    assert len(seen) == 1 and fix not in seen  # one fresh commit: the tree at base_commit
    assert (ws / "tags.txt").read_text() == ""
    assert not (ws / "leak.txt").exists()
    assert (ws / "calc" / "core.py").read_text() == BUGGY


def test_a_second_run_reuses_the_cached_checkout_and_setup(
    origin: tuple[Path, str, str], mirrors: Path, tmp_path: Path
) -> None:
    _, base, _ = origin
    task = row(
        base,
        env=EnvSpec(language="python", setup_cmds=("echo prepared > SETUP_DONE",)),
        test=TestSpec(commands=(TestCommand(shell="test -f SETUP_DONE && python tests/suite.py"),)),
    )
    cache = tmp_path / "cache"
    first = pb.run(task, Candidate.gold(), repos=[mirrors], cache_dir=cache)
    assert first.status is Status.RESOLVED, first.reason
    assert any("env_setup_cmds run" in n for n in first.notes)
    second = pb.run(task, Candidate.gold(), repos=[mirrors], cache_dir=cache)
    assert second.status is Status.RESOLVED
    note = next(n for n in second.notes if n.startswith("repository "))
    assert "(cached)" in note and "env_setup_cmds cached" in note


def test_a_missing_repository_is_a_clear_error(tmp_path: Path) -> None:
    task = row(
        "0123456789abcdef0123456789abcdef01234567",
        repository=Repository(repo="nobody/nowhere", base_commit="0123456789abcdef0123456789abcdef01234567"),
    )
    v = pb.run(
        task, Candidate.gold(), repos=[tmp_path / "empty"], cache_dir=tmp_path / "cache", network=False
    )
    assert v.status is Status.INFRA_ERROR
    assert "nobody/nowhere" in v.reason and "0123456789abcdef" in v.reason
    assert "tried:" in v.reason and "network off" in v.reason


def test_a_commit_missing_from_the_mirror_is_named(
    origin: tuple[Path, str, str], mirrors: Path, tmp_path: Path
) -> None:
    with pytest.raises(pb.EnvError, match="no commit deadbeef"):
        RepoCache(tmp_path / "cache", [mirrors], network=False).checkout(
            Repository(repo="acme/calc", base_commit="deadbeef")
        )


def test_a_context_slice_that_disagrees_with_the_repository_is_reported(
    origin: tuple[Path, str, str], mirrors: Path, tmp_path: Path
) -> None:
    _, base, _ = origin
    task = row(
        base, context_files=(FileEntry(path="calc/core.py", content="def scale(x):\n    return 42\n"),)
    )
    v = pb.run(task, Candidate.gold(), repos=[mirrors], cache_dir=tmp_path / "cache")
    assert any(n.startswith("context_mismatch: calc/core.py") for n in v.notes)


def test_the_builtin_patchbench_row_runs_from_its_bundle() -> None:
    (task,) = pb.load("builtin:patchbench").tasks
    assert task.repository is not None and task.workspace == ()
    assert pb.run(task, Candidate.gold()).status is Status.RESOLVED
    assert pb.run(task, Candidate.empty()).status is Status.UNRESOLVED


def test_runs_never_modify_the_cached_checkout(
    origin: tuple[Path, str, str], mirrors: Path, tmp_path: Path
) -> None:
    """Per-run copies hard-link the cache: a candidate's files, the hidden tests and code run in the
    sandbox that writes into the workspace must all leave the cached checkout as it was."""
    _, base, _ = origin
    cache = tmp_path / "cache"
    vandal = (
        "echo vandal >> calc/api.py; echo vandal > calc/core.py 2>/dev/null; "
        "chmod u+w calc/api.py 2>/dev/null; python tests/suite.py"
    )
    task = row(base, test=TestSpec(commands=(TestCommand(shell=vandal),)))
    pb.run(
        task,
        Candidate.files({"calc/core.py": FIXED, "README.md": "changed\n"}),
        repos=[mirrors],
        cache_dir=cache,
    )
    pb.run(task, Candidate.gold(), repos=[mirrors], cache_dir=cache)
    co = RepoCache(cache, [mirrors], network=False).checkout(Repository(repo="acme/calc", base_commit=base))
    assert co.cache_hit
    assert (co.path / "calc" / "core.py").read_text() == BUGGY
    assert (co.path / "calc" / "api.py").read_text() == HELPER
    assert (co.path / "README.md").read_text() == "calc\n"
