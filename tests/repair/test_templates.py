"""The generated default-fail verifiers (repair/templates.py), run with bash on temporary directories.

The container paths are configurable, so the scripts run here without a sandbox: /app, /tests and
/logs/verifier become temporary directories. ``python3`` is this interpreter (it has pytest); ``mvn`` is a
stand-in that prints a given Maven output and exits with a given code (the real Maven run is in
test_maven.py).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from patchbench.repair.templates import (
    MAVEN,
    PYTHON_SINGLE_FILE,
    MavenVerifier,
    Paths,
    PythonVerifier,
    read_header,
    render_test_state,
)
from patchbench.verifiers.script import read_reward

BUGGY = "def median(xs):\n    s = sorted(xs)\n    return s[len(s) // 2]\n"
CORRECT = (
    "def median(xs):\n    s = sorted(xs)\n    n = len(s)\n"
    "    return s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2\n"
)
TESTS = (
    "from solution import median\n\n\ndef test_odd():\n    assert median([3, 1, 2]) == 2\n\n\n"
    "def test_even():\n    assert median([4, 1, 2, 3]) == 2.5\n"
)


BASH = shutil.which("bash") or "/bin/bash"
TOOLS = ("bash", "sed", "awk", "head", "cat", "cp", "mkdir", "rm", "env", "cmp", "mktemp", "timeout")


@dataclass
class Box:
    root: Path
    paths: Paths
    bin: Path

    @property
    def app(self) -> Path:
        return Path(self.paths.app_dir)

    @property
    def tests(self) -> Path:
        return Path(self.paths.tests_dir)

    @property
    def logs(self) -> Path:
        return Path(self.paths.logs_dir)

    def run(self, env: dict[str, str] | None = None) -> tuple[float | None, float | None, str]:
        for p in self.logs.glob("*"):
            p.unlink()
        r = subprocess.run(
            [BASH, str(self.tests / "test.sh")],
            capture_output=True,
            text=True,
            timeout=120,
            env={"PATH": str(self.bin), "HOME": str(self.root), **(env or {})},
            check=False,
        )
        assert r.returncode == 0, r.stderr  # the reward file alone is the verdict
        reward = read_reward(self.logs)
        return reward.value, reward.pass_ratio, r.stdout + r.stderr


@pytest.fixture
def box(tmp_path: Path) -> Box:
    paths = Paths(str(tmp_path / "app"), str(tmp_path / "tests"), str(tmp_path / "logs" / "verifier"))
    for d in (paths.app_dir, paths.tests_dir):
        Path(d).mkdir(parents=True)
    bindir = tmp_path / "bin"
    bindir.mkdir()
    (bindir / "python3").symlink_to(sys.executable)
    # Only the tools the scripts use: a host's own mvn or python3 must not be found.
    for tool in TOOLS:
        found = shutil.which(tool)
        if found:
            (bindir / tool).symlink_to(found)
    return Box(tmp_path, paths, bindir)


def python_box(box: Box, mode: str = "A", tests: str = TESTS) -> Box:
    verifier = PythonVerifier(
        mode=mode,  # type: ignore[arg-type]
        buggy_sha256=hashlib.sha256(BUGGY.encode()).hexdigest(),
        paths=box.paths,
    )
    (box.tests / "test.sh").write_text(verifier.test_sh())
    (box.tests / "test_state.py").write_text(render_test_state(box.paths))
    (box.tests / "test_solution.py").write_text(tests)
    (box.app / "solution.py").write_text(BUGGY)
    (box.app / ".buggy_solution.py").write_text(BUGGY)
    return box


@pytest.mark.slow
def test_python_mode_a_smoke_matrix(box: Box) -> None:
    b = python_box(box)
    reward, ratio, out = b.run()
    assert (reward, ratio) == (0.0, 0.0) and "unmodified" in out  # the buggy solution as given
    (b.app / "solution.py").write_text(BUGGY + "# touched\n")
    reward, ratio, out = b.run()
    assert (reward, ratio) == (0.0, 0.5) and "pytest exited 1" in out  # modified, tests still fail
    (b.app / "solution.py").write_text("import no_such_module\n" + CORRECT)
    assert b.run()[0] == 0.0  # modified, does not import
    (b.app / "solution.py").write_text("def median(xs:\n")
    assert b.run()[0] == 0.0  # does not compile
    (b.app / "solution.py").write_text(CORRECT)
    reward, ratio, out = b.run()
    assert (reward, ratio) == (1.0, 1.0)
    assert "PASSED" in out and "test_reward_is_one" in out  # test_state.py ran through pytest
    (b.app / "solution.py").unlink()
    assert b.run()[:2] == (0.0, 0.0)  # empty /app


@pytest.mark.slow
def test_python_no_op_guard_survives_an_edited_baseline(box: Box) -> None:
    b = python_box(box)
    (b.app / ".buggy_solution.py").write_text("anything else\n")  # the agent overwrote the baseline
    reward, _, out = b.run()
    assert reward == 0.0 and "same as the buggy solution" in out
    (b.app / ".buggy_solution.py").unlink()
    assert b.run()[0] == 0.0


@pytest.mark.slow
def test_python_zero_tests_is_never_a_pass(box: Box) -> None:
    b = python_box(box, tests="from solution import median\n")
    (b.app / "solution.py").write_text(CORRECT)
    reward, ratio, out = b.run()
    assert (reward, ratio) == (0.0, 0.0) and "pytest exited 5" in out


def test_python_skipped_only_is_never_a_pass(box: Box) -> None:
    b = python_box(box, tests="import pytest\n\n@pytest.mark.skip\ndef test_a():\n    pass\n")
    (b.app / "solution.py").write_text(CORRECT)
    assert b.run()[:2] == (0.0, 0.0)


@pytest.mark.slow
def test_python_mode_b(box: Box) -> None:
    b = python_box(box, mode="B", tests="def test_a(:\n")
    assert b.run()[0] == 0.0  # unmodified
    (b.app / "solution.py").write_text("import no_such_module\n")
    assert b.run()[0] == 0.0  # does not import
    (b.app / "solution.py").write_text(CORRECT)
    reward, ratio, out = b.run()
    assert (reward, ratio) == (1.0, 0.0) and "mode B" in out


def test_python_exit_code_is_pytests_own(box: Box) -> None:
    """A conftest that makes pytest exit non-zero after passing tests: no pipe hides it."""
    b = python_box(box)
    (b.tests / "conftest.py").write_text(
        "def pytest_sessionfinish(session, exitstatus):\n    session.exitstatus = 3\n"
    )
    (b.app / "solution.py").write_text(CORRECT)
    reward, ratio, out = b.run()
    assert reward == 0.0 and ratio == 1.0 and "pytest exited 3" in out


def test_python_counts_fall_back_to_pytests_summary(tmp_path: Path) -> None:
    from patchbench.repair import templates

    log = tmp_path / "pytest.log"
    ratio = tmp_path / "ratio"
    for text, expected in (
        ("....\n===== 3 passed, 1 failed, 2 errors in 0.12s =====\n", ("3 1 2", 0.5)),
        ("2 passed, 1 xpassed in 0.01s\n", ("3 0 0", 1.0)),
        ("no tests ran in 0.01s\n", ("0 0 0", 0.0)),
        ("garbage\n", ("0 0 0", 0.0)),
    ):
        log.write_text(text)
        r = subprocess.run(
            [
                sys.executable,
                "-c",
                templates._PYTEST_COUNTS,
                str(tmp_path / "missing.xml"),
                str(log),
                str(ratio),
            ],
            capture_output=True,
            text=True,
            check=True,
        )
        assert r.stdout.strip() == expected[0]
        assert float(ratio.read_text()) == expected[1]


def test_headers_record_template_and_mode() -> None:
    py = PythonVerifier(solution="calc.py", test_files=("test_a.py", "test_b.py"), mode="B")
    assert read_header(py.test_sh()) == {
        "template": PYTHON_SINGLE_FILE,
        "mode": "B",
        "solution": "calc.py",
        "tests": "test_a.py,test_b.py",
    }
    assert read_header(MavenVerifier().test_sh()) == {"template": MAVEN, "tests": "TestSolution.java"}
    assert read_header("#!/bin/bash\necho hi\n") is None
    assert 'export PYTHONPATH="$APP"' in py.test_sh() and "MODULE=calc" in py.test_sh()


def test_templates_reject_unsafe_names() -> None:
    for bad in ("../solution.py", "/abs.py", "sol ution.py", "sol-ution.py"):
        with pytest.raises(ValueError):
            PythonVerifier(solution=bad)
    with pytest.raises(ValueError):
        PythonVerifier(mode="C")  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        MavenVerifier(test_file="Test.kt")
    with pytest.raises(ValueError):
        Paths(app_dir="app")


def test_generated_scripts_pass_bash_syntax_check(tmp_path: Path) -> None:
    for text in (PythonVerifier().test_sh(), PythonVerifier(mode="B").test_sh(), MavenVerifier().test_sh()):
        script = tmp_path / "t.sh"
        script.write_text(text)
        subprocess.run(["bash", "-n", str(script)], check=True)
        assert "| tee" not in text and "pipefail" not in text  # no pipe around the checked commands
        assert text.index('echo 0 > "$LOGS/reward.txt"') < text.index("fail()")  # 0 written first


# ------------------------------------------------------------------------------------------------- maven

MAVEN_PASS = """\
[INFO] Running demo.TestSolution
[INFO] Tests run: 2, Failures: 0, Errors: 0, Skipped: 0, Time elapsed: 0.01 s -- in demo.TestSolution
[INFO] Running demo.OtherTest
[INFO] Tests run: 3, Failures: 0, Errors: 0, Skipped: 1, Time elapsed: 0.01 s -- in demo.OtherTest
[INFO] Tests run: 5, Failures: 0, Errors: 0, Skipped: 1
[INFO] Running lib.LibTest
[INFO] Tests run: 4, Failures: 0, Errors: 0, Skipped: 0, Time elapsed: 0.01 s -- in lib.LibTest
[INFO] Tests run: 4, Failures: 0, Errors: 0, Skipped: 0
[INFO] BUILD SUCCESS
"""
MAVEN_FAIL = """\
[INFO] Running demo.TestSolution
Tests run: 2, Failures: 1, Errors: 0, Skipped: 0, Time elapsed: 0.1 s <<< FAILURE! -- in demo.TestSolution
[ERROR] Tests run: 2, Failures: 1, Errors: 0, Skipped: 0
[INFO] BUILD FAILURE
"""
MAVEN_ZERO = "[INFO] No tests to run.\n[INFO] BUILD SUCCESS\n"
MAVEN_NESTED = """\
[INFO] Tests run: 3, Failures: 0, Errors: 0, Skipped: 0, Time elapsed: 0.01 s -- in demo.TestSolution$Inner
[INFO] Tests run: 0, Failures: 0, Errors: 0, Skipped: 0, Time elapsed: 0.02 s -- in demo.TestSolution
[INFO] Tests run: 3, Failures: 0, Errors: 0, Skipped: 0
"""
FAKE_MVN = """\
#!/bin/bash
printf '%s\\n' "$@" > "$FAKE_DIR/args"
echo "${MAVEN_ARGS-unset}" > "$FAKE_DIR/maven_args"
pwd > "$FAKE_DIR/cwd"
cat "$FAKE_DIR/output"
exit "$(cat "$FAKE_DIR/rc")"
"""


def maven_box(box: Box, output: str, rc: int = 0, *, pom: bool = True) -> Box:
    (box.tests / "test.sh").write_text(MavenVerifier(paths=box.paths).test_sh())
    (box.tests / "test_state.py").write_text(render_test_state(box.paths))
    (box.tests / "TestSolution.java").write_text("package demo;\n\nclass TestSolution {}\n")
    if pom:
        (box.app / "pom.xml").write_text("<project/>\n")
    mvn = box.bin / "mvn"
    mvn.write_text(FAKE_MVN)
    mvn.chmod(0o755)
    (box.root / "output").write_text(output)
    (box.root / "rc").write_text(str(rc))
    return box


def maven_run(box: Box, **env: str) -> tuple[float | None, float | None, str]:
    return box.run({"FAKE_DIR": str(box.root), **env})


def test_maven_passes_only_with_tests_run_and_exit_0(box: Box) -> None:
    b = maven_box(box, MAVEN_PASS)
    reward, ratio, out = maven_run(b)
    assert (reward, ratio) == (1.0, 1.0), out
    assert "tests run 9, failures 0, errors 0, skipped 1" in out  # summed over both modules
    injected = b.app / "src" / "test" / "java" / "demo" / "TestSolution.java"
    assert injected.read_text() == (b.tests / "TestSolution.java").read_text()
    assert (b.root / "cwd").read_text().strip() == str(b.app)


def test_maven_failures(box: Box) -> None:
    b = maven_box(box, MAVEN_FAIL, rc=1)
    reward, ratio, out = maven_run(b)
    assert (reward, ratio) == (0.0, 0.5) and "exited 1" in out
    (b.root / "rc").write_text("0")  # failures with exit 0 (test.failure.ignore): still 0
    assert maven_run(b)[0] == 0.0
    (b.root / "output").write_text(MAVEN_PASS)
    (b.root / "rc").write_text("1")  # a clean summary with a failing exit code: 0
    assert maven_run(b)[0] == 0.0


def test_maven_zero_tests_and_no_pom_are_never_a_pass(box: Box) -> None:
    b = maven_box(box, MAVEN_ZERO)
    reward, ratio, out = maven_run(b)
    assert (reward, ratio) == (0.0, 0.0) and "ran no test" in out
    (b.app / "pom.xml").unlink()
    (b.root / "args").unlink()
    reward, ratio, out = maven_run(b)
    assert (reward, ratio) == (0.0, 0.0) and "no " in out and "pom.xml" in out
    assert not (b.root / "args").exists()  # Maven did not even run


def test_maven_requires_the_hidden_test_to_run(box: Box) -> None:
    b = maven_box(box, MAVEN_PASS.replace("demo.TestSolution", "demo.Other"))
    reward, _, out = maven_run(b)
    assert reward == 0.0 and "hidden test demo.TestSolution did not run" in out
    (b.root / "output").write_text(MAVEN_NESTED)  # @Nested classes of the hidden test count
    assert maven_run(b)[0] == 1.0


def test_maven_offline_settings_come_from_the_environment(box: Box) -> None:
    b = maven_box(box, MAVEN_PASS)
    assert maven_run(b, MAVEN_SETTINGS="/tmp/settings.xml", MAVEN_ARGS="-o -q -Dx=1")[0] == 1.0
    args = (b.root / "args").read_text().split()
    assert args[:2] == ["-B", "-Dstyle.color=never"]
    assert args[2:4] == ["-s", "/tmp/settings.xml"] and "-o" in args and "-Dx=1" in args
    assert "-q" not in args and args[-1] == "test"
    assert (b.root / "maven_args").read_text().strip() == "unset"  # not applied twice by Maven 3.9


def test_maven_missing_mvn(box: Box) -> None:
    b = maven_box(box, MAVEN_PASS)
    (b.bin / "mvn").unlink()
    reward, _, out = maven_run(b)
    assert reward == 0.0 and "mvn is not installed" in out


def test_state_check_fails_unless_reward_is_one(tmp_path: Path) -> None:
    paths = Paths(logs_dir=str(tmp_path))
    test = tmp_path / "test_state.py"
    test.write_text(render_test_state(paths))
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(test)]
    (tmp_path / "reward.txt").write_text("0\n")
    assert subprocess.run(cmd, capture_output=True, env=env, check=False).returncode == 1
    (tmp_path / "reward.txt").write_text("1\n")
    assert subprocess.run(cmd, capture_output=True, env=env, check=False).returncode == 0


def test_a_solution_cannot_write_its_own_reward(box: Box) -> None:
    b = python_box(box)
    (b.app / "solution.py").write_text(
        f"open({str(b.logs / 'reward.txt')!r}, 'w').write('1')\n" + BUGGY + "# touched\n"
    )
    reward, _, out = b.run()
    assert reward == 0.0 and "pytest exited 1" in out
