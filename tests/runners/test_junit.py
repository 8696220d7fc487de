"""The JUnit runner: real Surefire and console-launcher output, id normalisation, claims and invocation."""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from patchbench.errors import ResultParseError
from patchbench.results import Outcome

# Aliased: pytest would try to collect classes named Test* found in a test module.
from patchbench.results import TestResults as Results
from patchbench.runners import RUNNERS, choose_runner, get_runner, match_ids
from patchbench.runners._base import RunOutput
from patchbench.runners.junit import (
    MAX_MESSAGE_CHARS,
    JunitRunner,
    add_reports_dir,
    add_reports_dir_to_shell,
    javac_errors,
    maven_build_failure,
    normalise_java_id,
    parse_junit_reports,
)
from patchbench.task import ResultProtocol
from patchbench.task import TestCommand as Command
from patchbench.task import TestSpec as Spec

JUNIT_DIR = Path(__file__).resolve().parent.parent / "fixtures" / "junit"
EXPECTED = sorted(JUNIT_DIR.glob("*.expected.json"))
RUNNER = JunitRunner()


def _output(name: str) -> RunOutput:
    run = json.loads((JUNIT_DIR / f"{name}.run.json").read_text(encoding="utf-8"))
    return RunOutput(
        stdout=(JUNIT_DIR / f"{name}.stdout").read_text(encoding="utf-8"),
        stderr=(JUNIT_DIR / f"{name}.stderr").read_text(encoding="utf-8"),
        exit_code=run["exit_code"],
        report_dir=JUNIT_DIR / f"{name}.reports",  # absent (not in git) when the run wrote nothing
    )


def _parse(name: str) -> Results:
    return RUNNER.parse(_output(name))


def _by_id(results: Results) -> dict[str, Any]:
    return {t.id: t for t in results.tests}


# -- real captured output -----------------------------------------------------------------------


def test_every_fixture_has_an_expected_parse() -> None:
    stems = {p.name.removesuffix(".expected.json") for p in EXPECTED}
    runs = {p.name.removesuffix(".run.json") for p in JUNIT_DIR.glob("*.run.json")}
    assert stems == runs
    assert {"maven_full", "maven_compile_error_main", "console_full", "maven_killed", "maven_no_pom"} <= stems


@pytest.mark.parametrize("expected_file", EXPECTED, ids=lambda p: p.name.removesuffix(".expected.json"))
def test_captured_output_parses_to_the_expected_results(expected_file: Path) -> None:
    expected: dict[str, Any] = json.loads(expected_file.read_text(encoding="utf-8"))
    results = _parse(expected["source"])
    assert results.runner == "junit"
    got = sorted((t.id, t.outcome.value) for t in results.tests)
    assert got == [(t["id"], t["outcome"]) for t in expected["tests"]]
    assert results.complete is expected["complete"]
    assert (results.build_error is not None) is expected["build_error"]
    for part in expected.get("build_error_include", []):
        assert part in (results.build_error or "")
    for part in expected.get("notes_include", []):
        assert any(part in n for n in results.notes), results.notes


def test_surefire_outcomes_ids_and_messages() -> None:
    tests = _by_id(_parse("maven_full"))
    assert tests["demo.CalcTest#adds"].outcome is Outcome.PASSED
    fails = tests["demo.CalcTest#fails"]
    assert fails.outcome is Outcome.FAILED  # an assertion: <failure>
    assert fails.message.startswith(
        "org.opentest4j.AssertionFailedError: sum ==> expected: <4> but was: <3>\n"
    )
    assert fails.message.count("expected: <4>") == 1
    assert len(fails.message) <= MAX_MESSAGE_CHARS
    assert tests["demo.CalcTest#errors"].outcome is Outcome.ERROR  # any other exception: <error>
    assert tests["demo.CalcTest#skipped"].outcome is Outcome.SKIPPED
    assert tests["demo.CalcTest#skipped"].message == "not now"
    assert tests["demo.CalcTest#assumed"].outcome is Outcome.SKIPPED  # a failed assumption
    assert tests["demo.CalcTest#param(int)[3]"].outcome is Outcome.FAILED
    assert tests["demo.CalcTest#param(int)[1]"].outcome is Outcome.PASSED
    assert tests["demo.CalcTest$Inner$Deeper#deepest"].outcome is Outcome.FAILED
    assert tests["demo.CalcTest#factory()[2]"].outcome is Outcome.FAILED
    assert tests["demo.CalcTest#displayed"].outcome is Outcome.PASSED  # method name, not display name
    # A @BeforeAll that throws: one class-level entry, and the class's tests are absent.
    assert tests["demo.SetupFailsTest"].outcome is Outcome.ERROR
    assert "demo.SetupFailsTest#neverRuns" not in tests
    assert tests["demo.PassingTest#one"].duration_s is not None


def test_surefire_and_console_launcher_ids_match_the_same_f2p_entries() -> None:
    wanted = [
        "demo.CalcTest#adds",
        "demo.CalcTest.adds",
        "demo.CalcTest#adds()",
        "demo.CalcTest.param(int)[3]",
        "demo.CalcTest.Inner.Deeper.deepest",
        "demo.CalcTest$Inner#deep",
        "demo.CalcTest.dotted(String)[1]",
    ]
    for name in ("maven_full", "console_full"):
        got = match_ids(RUNNER, wanted, _parse(name))
        assert all(got[w] is not None for w in wanted), (name, got)
        outcomes = {w: r.outcome.value for w, r in got.items() if r is not None}
        assert outcomes["demo.CalcTest.adds"] == "passed"
        assert outcomes["demo.CalcTest.param(int)[3]"] == "failed"
        assert outcomes["demo.CalcTest.Inner.Deeper.deepest"] == "failed"


def test_a_simple_class_name_does_not_match_a_qualified_one() -> None:
    got = match_ids(
        RUNNER, ["CalcTest#adds", "demo.CalcTest#add", "demo.CalcTest#param(int)"], _parse("maven_full")
    )
    assert got == {"CalcTest#adds": None, "demo.CalcTest#add": None, "demo.CalcTest#param(int)": None}


def test_console_launcher_reports_a_failing_before_all_on_each_test() -> None:
    tests = _by_id(_parse("console_full"))
    assert tests["demo.SetupFailsTest#neverRuns()"].outcome is Outcome.ERROR
    assert tests["demo.CalcTest#skipped()"].message == "not now"  # text, not a message attribute


def test_compile_errors_become_build_errors_with_the_compiler_lines() -> None:
    main = _parse("maven_compile_error_main")
    assert main.tests == ()
    assert main.build_error is not None
    # Each error once, although quiet Maven prints them twice; the workspace prefix is not stripped
    # here (the capture ran outside the sandbox) but the detail lines are kept.
    assert main.build_error.count("Calc.java:[8,24]") == 1
    assert "location: class demo.Calc" in main.build_error
    javac = _parse("console_compile_error")
    assert javac.build_error is not None and "2 errors" not in javac.build_error
    assert "^" in javac.build_error  # javac's caret line is kept


def test_maven_exit_1_is_read_from_the_reports_not_the_exit_code() -> None:
    failing = _parse("maven_full")
    assert failing.build_error is None and failing.complete
    crashed = _parse("maven_vm_exit")
    assert crashed.build_error is None and not crashed.complete and crashed.tests == ()


def test_zero_tests_is_never_a_pass() -> None:
    results = _parse("maven_no_tests")
    assert results.tests == () and results.build_error is None


# -- the reader on its own -----------------------------------------------------------------------


def _write(tmp_path: Path, name: str, body: str) -> Path:
    p = tmp_path / name
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(body, encoding="utf-8")
    return p


def test_parse_junit_reports_merges_files_and_keeps_the_worst_duplicate(tmp_path: Path) -> None:
    a = _write(
        tmp_path,
        "a.xml",
        '<testsuites><testsuite name="x"><testsuite name="inner">'
        '<testcase classname="p.A" name="t1" time="0.5"/>'
        '<testcase classname="p.A" name="t2"><failure message="m">trace</failure></testcase>'
        "</testsuite></testsuite></testsuites>",
    )
    b = _write(
        tmp_path,
        "b.xml",
        '<testsuite name="y"><testcase classname="p.A" name="t1" time="0.25"><error>boom</error></testcase>'
        '<testcase classname="p.B" name="flaky"><flakyFailure message="once"/></testcase>'
        '<testcase name="bare"/></testsuite>',
    )
    other = _write(tmp_path, "other.xml", "<coverage/>")
    results = parse_junit_reports([a, b, other], runner="junit")
    tests = _by_id(results)
    assert tests["p.A#t1"].outcome is Outcome.ERROR and tests["p.A#t1"].duration_s == 0.75
    assert tests["p.A#t2"].message == "m\ntrace"
    assert tests["p.B#flaky"].outcome is Outcome.PASSED
    assert tests["bare"].outcome is Outcome.PASSED
    notes = " ".join(results.notes)
    assert "merged 1" in notes and "rerun" in notes and "not a JUnit report" in notes


def test_parse_junit_reports_takes_an_id_maker(tmp_path: Path) -> None:
    f = _write(
        tmp_path,
        "jest.xml",
        '<testsuites><testsuite name="math.test.js">'
        '<testcase classname="adds" name="adds"/></testsuite></testsuites>',
    )
    results = parse_junit_reports(
        [f],
        runner="node",
        make_id=lambda case, suite: f"{suite.get('name')} > {case.get('name')}" if suite is not None else "",
    )
    assert [t.id for t in results.tests] == ["math.test.js > adds"]
    assert results.runner == "node"


@pytest.mark.parametrize(
    "body",
    ["", "<testsuite", '<!DOCTYPE x [<!ENTITY a "b">]><testsuite/>', "<html/>"],
    ids=["empty", "truncated", "dtd", "not-junit"],
)
def test_parse_junit_reports_refuses_when_nothing_is_readable(tmp_path: Path, body: str) -> None:
    with pytest.raises(ResultParseError):
        parse_junit_reports([_write(tmp_path, "r.xml", body)], runner="junit")
    with pytest.raises(ResultParseError):
        parse_junit_reports([], runner="junit")


def test_parse_without_reports_and_without_a_readable_output_raises(tmp_path: Path) -> None:
    with pytest.raises(ResultParseError):
        RUNNER.parse(RunOutput("segfault", "", 139, tmp_path))
    # Exit 0, nothing written (quiet Maven with no test): zero tests, not an error.
    assert RUNNER.parse(RunOutput("", "", 0, tmp_path)).tests == ()


def test_after_tests_ran_only_a_compiler_error_is_a_build_error(tmp_path: Path) -> None:
    _write(tmp_path, "TEST-a.xml", '<testsuite><testcase classname="p.A" name="t"/></testsuite>')
    later = (
        "[ERROR] Failed to execute goal org.jacoco:jacoco-maven-plugin:0.8.12:check (check) on project p\n"
    )
    results = RUNNER.parse(RunOutput(later, "", 1, tmp_path))
    assert results.build_error is None and not results.complete
    other_module = (
        "[ERROR] /workspace/b/src/main/java/B.java:[3,1] class, interface, enum, or record expected\n"
    )
    results = RUNNER.parse(RunOutput(other_module, "", 1, tmp_path))
    assert (
        results.build_error
        == "compilation failed:\nb/src/main/java/B.java:[3,1] class, interface, enum, or record expected"
    )
    assert [t.id for t in results.tests] == ["p.A#t"]


def test_exit_codes_are_cross_checked_with_the_reports(tmp_path: Path) -> None:
    _write(tmp_path, "TEST-a.xml", '<testsuite><testcase classname="p.A" name="t"/></testsuite>')
    assert RUNNER.parse(RunOutput("", "", 0, tmp_path)).complete
    unexplained = RUNNER.parse(RunOutput("[ERROR] later plugin failed", "", 1, tmp_path))
    assert not unexplained.complete and any("no failure" in n for n in unexplained.notes)
    killed = RUNNER.parse(RunOutput("", "", None, tmp_path))
    assert not killed.complete


def test_build_failure_helpers() -> None:
    assert maven_build_failure("[INFO] BUILD SUCCESS\n") == (None, [])
    error, _ = maven_build_failure(
        "[ERROR] [ERROR] Some problems were encountered while processing the POMs:\n"
        "[ERROR] Non-parseable POM /workspace/pom.xml: end tag name </dependency> must match\n"
        "[ERROR] -> [Help 1]\n"
    )
    assert error is not None and "Non-parseable POM pom.xml" in error and "Help 1" not in error
    assert javac_errors("Note: Some input files use unchecked operations.\n") is None


# -- ids ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("given", "normal"),
    [
        ("demo.CalcTest#adds", "demo.CalcTest#adds"),
        ("demo.CalcTest.adds", "demo.CalcTest#adds"),
        ("demo.CalcTest#adds()", "demo.CalcTest#adds"),
        ("  demo.CalcTest.adds  ", "demo.CalcTest#adds"),
        ("demo.CalcTest.param(int)[1]", "demo.CalcTest#param(int)[1]"),
        ("demo.CalcTest.dotted(java.lang.String)[2]", "demo.CalcTest#dotted(java.lang.String)[2]"),
        ("demo.CalcTest.Inner.deep", "demo.CalcTest$Inner#deep"),
        ("demo.CalcTest$Inner#deep()", "demo.CalcTest$Inner#deep"),
        ("demo.CalcTest.Inner#deep", "demo.CalcTest$Inner#deep"),
        ("demo.SetupFailsTest", "demo.SetupFailsTest"),
        ("CalcTest.adds", "CalcTest#adds"),
        ("adds", "adds"),
        ("com.acme.util.StringsTest.test_1", "com.acme.util.StringsTest#test_1"),
    ],
)
def test_normalise_java_id(given: str, normal: str) -> None:
    assert normalise_java_id(given) == normal
    assert RUNNER.normalise_id(given) == normal
    assert normalise_java_id(normal) == normal  # idempotent


# -- claims and invocation ----------------------------------------------------------------------


def test_the_runner_is_registered() -> None:
    assert isinstance(get_runner("junit"), JunitRunner)
    assert list(RUNNERS)[-1] == "tap"


@pytest.mark.parametrize(
    ("command", "claimed"),
    [
        (Command(argv=("mvn", "-q", "-B", "test")), True),
        (Command(argv=("./mvnw", "test")), True),
        (Command(shell="cd app && mvnw -B verify"), True),
        (Command(shell="timeout 300 mvn test -Dtest=FooTest"), True),
        (Command(argv=("java", "-jar", "lib/junit-platform-console-standalone-1.14.1.jar", "execute")), True),
        (
            Command(
                shell='javac -d out $(find . -name "*.java") && '
                'java -jar "$JUNIT_CONSOLE_JAR" execute -cp out'
            ),
            True,
        ),
        (
            Command(
                argv=("java", "-cp", "a.jar:b", "org.junit.platform.console.ConsoleLauncher", "-cp", "x")
            ),
            True,
        ),
        (Command(argv=("java", "-jar", "app.jar", "junit-platform-console-standalone.jar")), False),
        (Command(shell="echo mvn test"), False),
        (Command(argv=("javac", "-cp", "junit-platform-console-standalone.jar", "A.java")), False),
    ],
)
def test_claims(command: Command, claimed: bool) -> None:
    spec = Spec(commands=(command,))
    assert (choose_runner(spec).name == "junit") is claimed


def test_an_explicit_protocol_picks_the_runner() -> None:
    assert (
        choose_runner(Spec(commands=(Command(shell="./run.sh"),), protocol=ResultProtocol.JUNIT)).name
        == "junit"
    )


def test_console_launcher_gets_our_reports_dir() -> None:
    argv = [
        "java",
        "-jar",
        "/x/junit-platform-console-standalone-1.14.1.jar",
        "execute",
        "--reports-dir",
        "mine",
        "-cp",
        "c",
    ]
    assert add_reports_dir(argv, "/r") == [*argv[:4], "--reports-dir=/r", "-cp", "c"]
    legacy = [
        "java",
        "-cp",
        "c",
        "org.junit.platform.console.ConsoleLauncher",
        "--scan-classpath",
        "--reports-dir=x",
    ]
    assert add_reports_dir(legacy, "/r") == [*legacy[:4], "--reports-dir=/r", "--scan-classpath"]
    assert add_reports_dir(["mvn", "test"], "/r") == ["mvn", "test"]
    compile_step = 'javac -cp "$JUNIT_CONSOLE_JAR" A.java && '
    script = compile_step + 'java -jar "$JUNIT_CONSOLE_JAR" execute --reports-dir out -cp .'
    assert add_reports_dir_to_shell(script, "/r d") == (
        compile_step + "java -jar \"$JUNIT_CONSOLE_JAR\" execute --reports-dir='/r d' -cp ."
    )
    assert add_reports_dir_to_shell("mvn test", "/r") == "mvn test"
    quoted = 'java -jar "/opt/a b/junit-platform-console-standalone-1.14.1.jar" --scan-classpath'
    assert add_reports_dir_to_shell(quoted, "/r") == quoted.replace('.jar" ', '.jar" --reports-dir=/r ')
    braced = "cd x; java -jar ${JUNIT_CONSOLE_JAR} execute --select-class A | tee log"
    assert add_reports_dir_to_shell(braced, "/r") == braced.replace("execute", "execute --reports-dir=/r")


def test_invoke_wraps_the_command_and_keeps_it_intact() -> None:
    inv = RUNNER.invoke(Command(argv=("mvn", "-q", "test")), "/.patchbench-reports")
    assert inv.argv[:2] == ["bash", "-c"]
    assert inv.argv[3:] == ["patchbench-junit-collect", "/.patchbench-reports", "mvn", "-q", "test"]
    assert inv.env == {}
    shell = RUNNER.invoke(Command(shell="mvn test | tee log"), "/r")
    assert shell.argv[-3:] == ["bash", "-c", "mvn test | tee log"]


def test_the_wrapper_copies_only_reports_written_during_the_run(tmp_path: Path) -> None:
    project, reports = tmp_path / "project", tmp_path / "reports"
    reports.mkdir()
    stale = _write(project, "target/surefire-reports/TEST-old.xml", "<testsuite/>")
    old = time.time() - 60
    os.utime(stale, (old, old))
    _write(project, "target/surefire-reports/notes.txt", "x")
    script = (
        "mkdir -p target/surefire-reports mod/target/failsafe-reports && "
        "echo '<testsuite/>' > 'target/surefire-reports/TEST-p.A$Inner.xml' && "
        "echo '<testsuite/>' > mod/target/failsafe-reports/TEST-p.B.xml && exit 3"
    )
    inv = RUNNER.invoke(Command(shell=script), str(reports))
    proc = subprocess.run(inv.argv, cwd=project, capture_output=True, check=False)
    assert proc.returncode == 3  # the command's exit code passes through
    copied = sorted(p.relative_to(reports).as_posix() for p in reports.rglob("*") if p.is_file())
    assert copied == [
        "mod/target/failsafe-reports/TEST-p.B.xml",
        "target/surefire-reports/TEST-p.A$Inner.xml",
    ]


@pytest.mark.parametrize("keep", [0.3, 0.6, 0.95])
def test_a_report_cut_while_written_with_exit_code_0_is_incomplete(tmp_path: Path, keep: float) -> None:
    """Regression: a JUnit report truncated (the JVM killed while writing it) with exit code 0 read as a
    complete run of 0 tests. A report that is there but unreadable now makes the run incomplete."""
    source = JUNIT_DIR / "console_full.reports"
    for f in source.iterdir():
        data = f.read_bytes()
        (tmp_path / f.name).write_bytes(
            data[: int(len(data) * keep)] if f.name == "TEST-junit-jupiter.xml" else data
        )
    out = _output("console_full")
    results = RUNNER.parse(RunOutput(out.stdout, out.stderr, 0, tmp_path))
    assert results.complete is False
    assert any("not well-formed" in n or "empty" in n for n in results.notes)


def test_every_report_cut_with_exit_code_0_is_incomplete(tmp_path: Path) -> None:
    (tmp_path / "TEST-x.xml").write_bytes(b"<?xml version='1.0'?><testsuite name='x'><testcase name='a'")
    results = RUNNER.parse(RunOutput("", "", 0, tmp_path))
    assert results.tests == ()
    assert results.complete is False
