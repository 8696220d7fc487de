"""The built-in Harbor dataset (``src/patchbench/data/harbor``), through the real harness.

Four task directories in the layouts of seeds 000 and 003:

* ``bugsinpy-0001`` and ``bugsinpy-0002``: single-file Python bug fixes whose ``tests/test.sh`` is the
  *original*, lenient verifier that a repair step replaces: it rewards every run in which pytest reports
  no failing test, so a collection error (no ``/app/solution.py``, or a test file that is not Python)
  counts as a pass, and it has no no-op check. ``bugsinpy-0002``'s test file is also corrupted (wrapped
  in markdown prose and fences), so pytest never collects it there and every candidate gets reward 1.
* ``junit-0001``: an empty /app, the agent writes a Maven project; seed 003's default-fail v2 verifier.
* ``junit-0001-v1``: the same task with seed 003's v1 verifier and its three bugs (pipe masking, zero
  JUnit tests counted as success, an EXIT trap rewarding ``$?`` = 0): it rewards an empty /app.

The rewards asserted here are the measured ones, lies included: they document what each verifier does.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import patchbench
from patchbench import Candidate, FileEntry, Status, Task, VerifierKind
from patchbench.data import builtin_path
from patchbench.envs.java import uses_maven
from patchbench.workspace import apply_patch, materialise

HARBOR = builtin_path("harbor")
IDS = ("bugsinpy-0001", "bugsinpy-0002", "junit-0001", "junit-0001-v1")
BUGSINPY_DOCKERFILE = (
    "FROM python:3.10-slim\n"
    "RUN pip install --no-cache-dir pytest\n"
    "WORKDIR /app\n"
    "COPY solution.py /app/solution.py\n"
    "RUN cp /app/solution.py /app/.buggy_solution.py\n"
)
JUNIT_DOCKERFILE = (
    "FROM eclipse-temurin:17-jdk\n"
    "RUN apt-get update && apt-get install -y maven python3-pytest\n"
    "WORKDIR /app\n"
)
FENCED = re.compile(r"^```python\n(.*?)^```$", re.S | re.M)

HAVE_JAVA = shutil.which("javac") is not None and shutil.which("mvn") is not None
needs_java = pytest.mark.skipif(not HAVE_JAVA, reason="a JDK and Maven are needed")


@pytest.fixture(scope="module")
def tasks() -> dict[str, Task]:
    loaded = patchbench.load(HARBOR)
    assert loaded.format == "harbor-dir"
    assert not loaded.errors, loaded.errors
    return {t.id: t for t in loaded.tasks}


def extra(task: Task, path: str) -> str:
    (f,) = [f for f in task.extra_files if f.path == path]
    return f.data().decode("utf-8")


def hidden(task: Task, path: str) -> FileEntry:
    (f,) = [f for f in task.hidden_tests if f.path == path]
    return f


def with_test_file(task: Task, text: str) -> Task:
    """``task`` with tests/test_solution.py replaced (what a repair of the test file would give)."""
    tests = tuple(
        FileEntry(path=f.path, content=text) if f.path == "test_solution.py" else f for f in task.hidden_tests
    )
    return task.model_copy(update={"hidden_tests": tests})


def unfenced(text: str) -> str:
    """The Python code inside the markdown fences of a corrupted test file."""
    m = FENCED.search(text)
    assert m is not None
    return m.group(1)


# ------------------------------------------------------------------------------------------- layout


def test_the_dataset_loads_as_four_script_tasks(tasks: dict[str, Task]) -> None:
    assert tuple(sorted(tasks)) == IDS
    for task in tasks.values():
        assert task.verifier is not None and task.verifier.kind is VerifierKind.SCRIPT
        assert task.gold_patch, task.id
        assert task.prompt.strip()
        assert not task.metadata.get("harbor_unresolved_copies"), task.id
        meta = json.loads(extra(task, "metadata.json"))
        assert meta["synthetic"] is True and meta["source"] == "patchbench-synthetic"
        assert (HARBOR / task.id / "tests" / "test.sh").stat().st_mode & 0o111, "test.sh is executable"
        assert {"test.sh", "test_state.py"} <= {f.path for f in task.hidden_tests}
        assert 'reward == "1"' in hidden(task, "test_state.py").data().decode()


@pytest.mark.parametrize("task_id", ["bugsinpy-0001", "bugsinpy-0002"])
def test_bugsinpy_layout(tasks: dict[str, Task], task_id: str) -> None:
    task = tasks[task_id]
    assert task.language == "python"
    assert extra(task, "environment/Dockerfile") == BUGSINPY_DOCKERFILE
    assert task.env.image == "python:3.10-slim" and task.env.python_requirements == ("pytest",)
    assert [f.path for f in task.workspace] == ["solution.py"]
    assert 40 <= task.workspace[0].data().decode().count("\n") <= 120
    assert task.verifier is not None and task.test.time_limit_s == 120.0
    assert task.gold_patch is not None and task.gold_patch.startswith(
        "--- a/solution.py\n+++ b/solution.py\n"
    )
    meta = json.loads(extra(task, "metadata.json"))
    assert {"project", "buggy_commit", "fixed_commit"} <= set(meta)
    # config.json weighs every test of test_solution.py.
    names = re.findall(r"^def (test_\w+)", hidden(task, "test_solution.py").data().decode(), re.M)
    assert 6 <= len(names) <= 10
    weights = json.loads(hidden(task, "config.json").data())["weights"]
    assert sorted(weights) == sorted(f"test_solution.py::{n}" for n in names)
    # The v1 verifier: no no-op check against the baked-in copy, and only a reported failure gives 0.
    script = hidden(task, "test.sh").data().decode()
    assert ".buggy_solution.py" not in script and "failed" in script


@pytest.mark.parametrize("task_id", ["junit-0001", "junit-0001-v1"])
def test_junit_layout(tasks: dict[str, Task], task_id: str) -> None:
    task = tasks[task_id]
    assert task.language == "java"
    assert extra(task, "environment/Dockerfile") == JUNIT_DOCKERFILE
    assert task.workspace == ()  # no starting code: the agent writes the whole project
    assert task.gold_patch is not None
    assert re.findall(r"^\+\+\+ b/(\S+)", task.gold_patch, re.M) == [
        "pom.xml",
        "src/main/java/com/example/ranges/IntervalSet.java",
    ]
    assert task.gold_patch.count("--- /dev/null\n") == 2
    assert "<artifactId>junit-jupiter</artifactId>" in task.gold_patch
    test_java = hidden(task, "TestSolution.java").data().decode()
    assert "package com.example.ranges;" in test_java
    assert 4 <= test_java.count("@Test") <= 8


def test_the_v1_junit_verifier_has_seed_003s_three_bugs(tasks: dict[str, Task]) -> None:
    v1 = hidden(tasks["junit-0001-v1"], "test.sh").data().decode()
    assert "pipefail" not in v1
    assert re.search(r"^javac .*\| tee ", v1, re.M)  # 1. javac's failure hidden by tee
    assert re.search(r"^java -jar .*--scan-class-path.*\| tee ", v1, re.M)  # 2. zero tests exit 0
    assert "--fail-if-no-tests" not in v1
    assert re.search(r"trap .*\$\? -eq 0.*echo 1 .*EXIT", v1)  # 3. the EXIT trap rewards $? = 0
    # v2 does none of that and starts from 0.
    v2 = hidden(tasks["junit-0001"], "test.sh").data().decode()
    assert "trap" not in v2 and "| tee" not in v2
    assert v2.index("echo 0 >") < v2.index("mvn -B test") < v2.index("echo 1 >")


# ------------------------------------------------------------------------------- bugsinpy, harness


@pytest.mark.parametrize(
    ("task_id", "candidate", "reward", "pass_ratio"),
    [
        ("bugsinpy-0001", Candidate.gold(), 1.0, 1.0),
        # The unmodified buggy code: pytest reports 3 of 8 tests failing.
        ("bugsinpy-0001", Candidate.empty(), 0.0, 0.625),
        # The lie: no /app/solution.py, the test file fails to import, pytest reports an error and no
        # failure, and the verifier pays.
        ("bugsinpy-0001", Candidate.wipe(), 1.0, None),
        # The corrupted test file is never collected (a SyntaxError is an error, not a failure), so
        # the verifier pays whatever /app holds: gold, the unmodified bug, nothing at all.
        ("bugsinpy-0002", Candidate.gold(), 1.0, None),
        ("bugsinpy-0002", Candidate.empty(), 1.0, None),
        ("bugsinpy-0002", Candidate.wipe(), 1.0, None),
    ],
    ids=lambda x: x.name if isinstance(x, Candidate) else str(x),
)
def test_bugsinpy_rewards_under_their_own_lenient_verifier(
    tasks: dict[str, Task], task_id: str, candidate: Candidate, reward: float, pass_ratio: float | None
) -> None:
    v = patchbench.run(tasks[task_id], candidate)
    assert v.status is (Status.RESOLVED if reward == 1.0 else Status.UNRESOLVED), v.reason
    assert v.reward == reward
    assert v.pass_ratio == pass_ratio
    if task_id == "bugsinpy-0002" or candidate.name == "wipe":
        assert " error" in v.stdout_tail and " failed" not in v.stdout_tail and " passed" not in v.stdout_tail


def test_bugsinpy_0002_tests_discriminate_once_the_fences_are_stripped(tasks: dict[str, Task]) -> None:
    """What the repair step recovers: a real test file that fails on the bug and passes on gold."""
    task = tasks["bugsinpy-0002"]
    corrupted = hidden(task, "test_solution.py").data().decode()
    assert corrupted.lstrip()[0].isalpha() and "```python" in corrupted  # prose, then a fence
    repaired = with_test_file(task, unfenced(corrupted))
    gold = patchbench.run(repaired, Candidate.gold())
    assert (gold.status, gold.reward, gold.pass_ratio) == (Status.RESOLVED, 1.0, 1.0), gold.reason
    buggy = patchbench.run(repaired, Candidate.empty())
    assert (buggy.status, buggy.reward, buggy.pass_ratio) == (Status.UNRESOLVED, 0.0, 0.75), buggy.reason
    assert "2 failed, 6 passed" in buggy.stdout_tail


@pytest.mark.parametrize("task_id", ["bugsinpy-0001", "bugsinpy-0002"])
def test_bugsinpy_tests_fail_on_the_bug_and_pass_on_gold_outside_the_harness(
    tasks: dict[str, Task], task_id: str, tmp_path: Path
) -> None:
    """A plain pytest run (no verifier) over the buggy and the gold solution.py."""
    task = tasks[task_id]
    text = hidden(task, "test_solution.py").data().decode()
    code = unfenced(text) if task_id == "bugsinpy-0002" else text
    outcomes = {}
    for name in ("buggy", "gold"):
        d = tmp_path / name
        materialise(task.workspace, d)
        if name == "gold":
            assert task.gold_patch is not None
            apply_patch(d, task.gold_patch, restore=lambda d=d: materialise(task.workspace, d))
        (d / "test_solution.py").write_text(code, encoding="utf-8")
        r = subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_solution.py"],
            cwd=d,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        outcomes[name] = r.returncode
    assert outcomes == {"buggy": 1, "gold": 0}


# ---------------------------------------------------------------------------------- junit, harness


@pytest.mark.slow
@needs_java
@pytest.mark.parametrize("candidate", [Candidate.empty(), Candidate.wipe()], ids=lambda c: c.name)
def test_junit_v2_rejects_an_empty_app(tasks: dict[str, Task], candidate: Candidate) -> None:
    v = patchbench.run(tasks["junit-0001"], candidate)
    assert v.status is Status.UNRESOLVED, v.reason
    assert (v.reward, v.pass_ratio) == (0.0, 0.0)
    assert "no /app/pom.xml" in v.stderr_tail


def _maven_ready(tasks: dict[str, Task]) -> bool:
    """Whether the Java environment prepares junit-0001 in Maven mode (from the pom.xml of its gold patch)."""
    return uses_maven(tasks["junit-0001"])


@pytest.mark.slow
@needs_java
def test_junit_v2_rewards_the_gold_project(tasks: dict[str, Task], request: pytest.FixtureRequest) -> None:
    if not _maven_ready(tasks):
        request.applymarker(
            pytest.mark.xfail(
                reason="patchbench.envs.java prepares Maven only from a pom.xml in the workspace or hidden "
                "tests; junit-0001's pom.xml comes from its gold patch (pending the java.py change), so "
                "`mvn test` runs offline against an empty repository",
                strict=True,
            )
        )
    v = patchbench.run(tasks["junit-0001"], Candidate.gold())
    assert v.status is Status.RESOLVED, f"{v.reason}\n{v.stdout_tail[-1500:]}"
    assert (v.reward, v.pass_ratio) == (1.0, 1.0)
    assert "Tests run: 7, Failures: 0, Errors: 0, Skipped: 0" in v.stdout_tail


@pytest.mark.slow
@needs_java
@pytest.mark.parametrize("candidate", [Candidate.empty(), Candidate.wipe()], ids=lambda c: c.name)
def test_junit_v1_rewards_an_empty_app(tasks: dict[str, Task], candidate: Candidate) -> None:
    """The lie of seed 003's v1 verifier, reproduced: nothing in /app, reward 1."""
    task = tasks["junit-0001-v1"]
    v = patchbench.run(task, candidate)
    assert v.status is Status.RESOLVED, v.reason
    assert v.reward == 1.0
    assert "error: cannot find symbol" in v.stdout_tail  # javac failed...
    if not uses_maven(task):
        # ...and with the console launcher the environment provides, JUnit found nothing and exited 0.
        assert re.search(r"\[\s+0 tests found\s+\]", v.stdout_tail)


@pytest.mark.slow
@needs_java
def test_junit_v1_also_rewards_gold(tasks: dict[str, Task]) -> None:
    v = patchbench.run(tasks["junit-0001-v1"], Candidate.gold())
    assert v.status is Status.RESOLVED, v.reason
