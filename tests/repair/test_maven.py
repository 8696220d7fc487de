"""Seed 003's Maven verifier with a real Maven, offline, against a repository the Java environment warmed.

Not through patchbench.run: a Harbor Maven task's environment cannot be warmed by the Java environment
yet (its test command is the verifier script), so the script runs with bash on temporary directories,
Maven reading an offline settings file (``$MAVEN_SETTINGS``) whose local repository is a writable link
tree over the cached one, as the Java environment's own prelude lays it out.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from patchbench.envs import Prepared, env_for
from patchbench.errors import EnvError
from patchbench.repair.templates import MavenVerifier, Paths, render_test_state
from patchbench.task import EnvSpec, FileEntry, Task, TestCommand, TestSpec
from patchbench.verifiers.script import read_reward

FIXTURES = Path(__file__).parent.parent / "fixtures" / "repair"
PROJECT = FIXTURES / "maven-project"
HIDDEN = FIXTURES / "junit-demo" / "tests" / "TestSolution.java"
CALC = "src/main/java/demo/Calc.java"

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def maven_env(tmp_path_factory: pytest.TempPathFactory) -> tuple[Prepared, Path]:
    if shutil.which("mvn") is None:
        pytest.skip("Maven is not installed")
    workspace = tuple(
        FileEntry(path=p.relative_to(PROJECT).as_posix(), content=p.read_text())
        for p in sorted(PROJECT.rglob("*"))
        if p.is_file()
    )
    task = Task(
        id="maven-warmup",
        language="java",
        workspace=workspace,
        hidden_tests=(FileEntry(path="src/test/java/demo/TestSolution.java", content=HIDDEN.read_text()),),
        test=TestSpec(commands=(TestCommand(argv=("mvn", "-B", "test")),)),
        env=EnvSpec(language="java", image="eclipse-temurin:17-jdk"),
    )
    try:
        prepared = env_for("java").prepare(task)
    except EnvError as e:
        pytest.skip(f"the Java environment cannot be prepared here: {e}")
    # A writable tree of links over the read-only cached repository, and offline settings that use it.
    root = tmp_path_factory.mktemp("m2")
    repo = root / "repository"
    for dirpath, _dirs, files in os.walk(prepared.root / "m2"):
        rel = Path(dirpath).relative_to(prepared.root / "m2")
        (repo / rel).mkdir(parents=True, exist_ok=True)
        for name in files:
            (repo / rel / name).symlink_to(Path(dirpath) / name)
    settings = root / "settings.xml"
    settings.write_text(
        f"<settings>\n  <localRepository>{repo}</localRepository>\n  <offline>true</offline>\n</settings>\n"
    )
    return prepared, settings


def run(
    tmp: Path, env: tuple[Prepared, Path], project: dict[str, str] | None
) -> tuple[float | None, float | None, str]:
    prepared, settings = env
    paths = Paths(str(tmp / "app"), str(tmp / "tests"), str(tmp / "logs" / "verifier"))
    app, tests = Path(paths.app_dir), Path(paths.tests_dir)
    app.mkdir(parents=True)
    tests.mkdir(parents=True)
    for rel, text in (project or {}).items():
        (app / rel).parent.mkdir(parents=True, exist_ok=True)
        (app / rel).write_text(text)
    (tests / "test.sh").write_text(MavenVerifier(paths=paths).test_sh())
    (tests / "test_state.py").write_text(render_test_state(paths))
    shutil.copy(HIDDEN, tests / "TestSolution.java")
    bindir = tmp / "bin"
    bindir.mkdir()
    (bindir / "python3").symlink_to(sys.executable)
    r = subprocess.run(
        ["bash", str(tests / "test.sh")],
        capture_output=True,
        text=True,
        timeout=300,
        env={
            "PATH": ":".join([str(bindir), *prepared.path, "/usr/local/bin:/usr/bin:/bin"]),
            "HOME": str(tmp),
            "JAVA_HOME": prepared.env["JAVA_HOME"],
            "MAVEN_SETTINGS": str(settings),
        },
        check=False,
    )
    reward = read_reward(Path(paths.logs_dir))
    return reward.value, reward.pass_ratio, r.stdout + r.stderr


def project(calc_body: str = "return a + b;", pom: str | None = None) -> dict[str, str]:
    files = {p.relative_to(PROJECT).as_posix(): p.read_text() for p in PROJECT.rglob("*") if p.is_file()}
    files[CALC] = files[CALC].replace("return a + b;", calc_body)
    if pom is not None:
        files["pom.xml"] = pom
    return files


def test_empty_app_is_0(tmp_path: Path, maven_env: tuple[Prepared, Path]) -> None:
    reward, ratio, out = run(tmp_path, maven_env, None)
    assert (reward, ratio) == (0.0, 0.0) and "pom.xml" in out


def test_correct_project_is_1(tmp_path: Path, maven_env: tuple[Prepared, Path]) -> None:
    reward, ratio, out = run(tmp_path, maven_env, project())
    assert (reward, ratio) == (1.0, 1.0), out
    assert "Tests run: 2, Failures: 0" in out


def test_half_broken_project_is_0_with_its_pass_ratio(
    tmp_path: Path, maven_env: tuple[Prepared, Path]
) -> None:
    reward, ratio, out = run(tmp_path, maven_env, project("return Math.abs(a) + Math.abs(b);"))
    assert (reward, ratio) == (0.0, 0.5), out


def test_compile_error_is_0(tmp_path: Path, maven_env: tuple[Prepared, Path]) -> None:
    reward, ratio, out = run(tmp_path, maven_env, project("return a + ;"))
    assert (reward, ratio) == (0.0, 0.0) and "mvn test exited 1" in out


def test_skipped_tests_are_never_a_pass(tmp_path: Path, maven_env: tuple[Prepared, Path]) -> None:
    pom = (
        (PROJECT / "pom.xml")
        .read_text()
        .replace("<properties>", "<properties>\n    <skipTests>true</skipTests>")
    )
    reward, _, out = run(tmp_path, maven_env, project(pom=pom))
    assert reward == 0.0 and "ran no test" in out
