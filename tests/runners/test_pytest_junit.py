"""The pytest runner (real junit.xml written by pytest), the runner registry and id matching."""

from __future__ import annotations

import json
import shlex
import shutil
from pathlib import Path
from typing import Any

import pytest

from patchbench.errors import ResultParseError, UnsafeFileError
from patchbench.results import Outcome

# Aliased: pytest would try to collect classes named Test* found in a test module.
from patchbench.results import TestResult as Result
from patchbench.results import TestResults as Results
from patchbench.runners import RUNNERS, PytestRunner, TapRunner, choose_runner, get_runner, match_ids
from patchbench.runners._base import RunOutput
from patchbench.runners.pytest_junit import MAX_MESSAGE_CHARS, REPORT_FILE, node_id, parse_junit
from patchbench.task import ResultProtocol
from patchbench.task import TestCommand as Command
from patchbench.task import TestSpec as Spec

PYTEST_DIR = Path(__file__).resolve().parent.parent / "fixtures" / "pytest"
EXPECTED = sorted(PYTEST_DIR.glob("*.expected.json"))


def _fixture(name: str) -> tuple[bytes, int]:
    """A captured report and the exit code pytest returned with it."""
    stem = name.removesuffix(".junit.xml")
    run = json.loads((PYTEST_DIR / f"{stem}.run.json").read_text(encoding="utf-8"))
    return (PYTEST_DIR / name).read_bytes(), int(run["exit_code"])


def _parse_fixture(name: str) -> Results:
    data, exit_code = _fixture(name)
    return parse_junit(data, exit_code=exit_code)


def _by_id(results: Results) -> dict[str, Result]:
    return {t.id: t for t in results.tests}


def _junit(*cases: str) -> bytes:
    body = "".join(cases)
    return (
        f'<?xml version="1.0"?><testsuites><testsuite name="pytest">{body}</testsuite></testsuites>'.encode()
    )


def _case(
    name: str, classname: str = "tests.test_x", file: str | None = "tests/test_x.py", inner: str = ""
) -> str:
    file_attr = f' file="{file}"' if file is not None else ""
    return f'<testcase classname="{classname}" name="{name}"{file_attr} time="0.010">{inner}</testcase>'


# -- real captured reports --------------------------------------------------------------------------


def test_every_pytest_fixture_has_an_expected_parse_and_a_recorded_exit_code() -> None:
    stems = {p.name.removesuffix(".expected.json") for p in EXPECTED}
    assert stems == {"full", "full_interrupted", "passing", "passing_none_selected"}
    assert {s: _fixture(f"{s}.junit.xml")[1] for s in stems} == {
        "full": 1,
        "full_interrupted": 2,
        "passing": 0,
        "passing_none_selected": 5,
    }


@pytest.mark.parametrize("expected_file", EXPECTED, ids=lambda p: p.name.removesuffix(".expected.json"))
def test_captured_junit_parses_to_the_expected_ids_outcomes_and_completeness(expected_file: Path) -> None:
    expected: dict[str, Any] = json.loads(expected_file.read_text(encoding="utf-8"))
    results = _parse_fixture(expected["source"])
    assert results.runner == "pytest"
    assert [(t.id, t.outcome.value) for t in results.tests] == [
        (t["id"], t["outcome"]) for t in expected["tests"]
    ]
    assert results.complete is expected["complete"], results.notes
    for fragment in expected.get("notes_include", []):
        assert any(fragment in note for note in results.notes), (fragment, results.notes)


def test_pytest_runner_parse_reads_junit_xml_from_the_report_dir(tmp_path: Path) -> None:
    shutil.copyfile(PYTEST_DIR / "passing.junit.xml", tmp_path / REPORT_FILE)
    out = RunOutput(stdout="", stderr="", exit_code=0, report_dir=tmp_path)
    results = PytestRunner().parse(out)
    assert len(results.tests) == 5
    assert results.complete is True
    assert results.notes == ()


def test_failure_message_has_the_message_attribute_then_the_traceback_end() -> None:
    tests = _by_id(_parse_fixture("full.junit.xml"))
    msg = tests["tests/check_basic.py::test_assertion_fails"].message or ""
    assert msg.startswith("assert [1, 2, 3] == [1, 2, 4]")
    assert msg.rstrip().endswith("tests/check_basic.py:11: AssertionError")
    assert all(len(t.message or "") <= MAX_MESSAGE_CHARS for t in tests.values())


def test_skip_xfail_and_strict_xpass_messages() -> None:
    tests = _by_id(_parse_fixture("full.junit.xml"))
    assert (tests["tests/check_basic.py::test_skipped"].message or "").startswith("not on this platform\n")
    assert tests["tests/check_basic.py::test_xfail"].message == "known bug 123"
    assert tests["tests/check_basic.py::test_xpass_strict"].message == "[XPASS(strict)] fixed upstream"


def test_non_strict_xpass_reads_as_a_plain_pass_because_junit_cannot_tell() -> None:
    tests = _by_id(_parse_fixture("full.junit.xml"))
    assert tests["tests/check_basic.py::test_xpass_lenient"].outcome is Outcome.PASSED


def test_teardown_error_after_a_pass_makes_the_test_an_error() -> None:
    result = _by_id(_parse_fixture("full.junit.xml"))[
        "tests/check_fixtures.py::test_passes_then_teardown_error"
    ]
    assert result.outcome is Outcome.ERROR
    assert 'failed on teardown with "RuntimeError: cleanup failed"' in (result.message or "")


def test_failure_then_teardown_error_written_as_two_testcases_merges_to_one_error() -> None:
    results = _parse_fixture("full.junit.xml")
    ids = [t.id for t in results.tests]
    assert ids.count("tests/check_fixtures.py::test_fails_then_teardown_error") == 1
    merged = _by_id(results)["tests/check_fixtures.py::test_fails_then_teardown_error"]
    assert merged.outcome is Outcome.ERROR
    assert "failed on teardown" in (merged.message or "")


def test_collection_error_is_an_error_with_the_file_path_as_id() -> None:
    result = _by_id(_parse_fixture("full_interrupted.junit.xml"))["tests/check_broken.py"]
    assert result.outcome is Outcome.ERROR
    assert (result.message or "").startswith("collection failure\n")
    assert "SyntaxError" in (result.message or "")


def test_run_from_a_subdirectory_still_gives_rootdir_relative_ids() -> None:
    # passing.junit.xml was captured with the working directory in passing/tests.
    ids = [t.id for t in _parse_fixture("passing.junit.xml").tests]
    assert ids[0] == "tests/check_ok.py::test_one"


def test_durations_come_from_the_time_attribute() -> None:
    results = parse_junit(_junit(_case("test_a")), exit_code=0)
    assert results.tests[0].duration_s == pytest.approx(0.01)


# -- node ids ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("file", "classname", "name", "expected"),
    [
        ("tests/test_x.py", "tests.test_x", "test_a", "tests/test_x.py::test_a"),
        ("tests/test_x.py", "tests.test_x", "test_a[1-2]", "tests/test_x.py::test_a[1-2]"),
        ("tests/test_x.py", "tests.test_x", "test_a[x.y-z::w]", "tests/test_x.py::test_a[x.y-z::w]"),
        ("tests/test_x.py", "tests.test_x.TestA", "test_b", "tests/test_x.py::TestA::test_b"),
        ("tests/test_x.py", "tests.test_x.TestA.TestB", "test_c", "tests/test_x.py::TestA::TestB::test_c"),
        ("test_x.py", "test_x", "test_a", "test_x.py::test_a"),
        ("a/b/c/test_x.py", "a.b.c.test_x.Test", "test_a[p]", "a/b/c/test_x.py::Test::test_a[p]"),
        # --junit-prefix puts a prefix before the module.
        ("tests/test_x.py", "py311.tests.test_x.TestA", "test_b", "tests/test_x.py::TestA::test_b"),
        # Windows-style or ./-prefixed file attributes are normalised.
        ("tests\\test_x.py", "tests.test_x", "test_a", "tests/test_x.py::test_a"),
        ("./tests/test_x.py", "tests.test_x", "test_a", "tests/test_x.py::test_a"),
        # A doctest file keeps its extension in classname.
        ("docs/guide.txt", "docs.guide.txt", "guide.txt", "docs/guide.txt::guide.txt"),
        # Collection error or module-level skip: classname empty, name is the module.
        ("tests/test_x.py", "", "tests.test_x", "tests/test_x.py"),
        # Missing file attribute: classes start at the first capitalised part.
        (None, "tests.test_x", "test_a", "tests/test_x.py::test_a"),
        (None, "tests.test_x.TestA.TestB", "test_c[1]", "tests/test_x.py::TestA::TestB::test_c[1]"),
        (None, "", "tests.test_x", "tests/test_x.py"),
    ],
)
def test_node_id_is_rebuilt_from_xunit1_attributes(
    file: str | None, classname: str, name: str, expected: str
) -> None:
    assert node_id(file, classname, name) == expected


def test_report_without_file_attributes_falls_back_to_classname() -> None:
    data = _junit(_case("test_b", classname="pkg.test_m.TestK", file=None))
    assert [t.id for t in parse_junit(data, exit_code=0).tests] == ["pkg/test_m.py::TestK::test_b"]


# -- outcomes ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("inner", "outcome"),
    [
        ("", Outcome.PASSED),
        ("<system-out>hello</system-out>", Outcome.PASSED),
        ('<failure message="boom">trace</failure>', Outcome.FAILED),
        ('<error message="failed on setup with &quot;x&quot;">trace</error>', Outcome.ERROR),
        ('<skipped type="pytest.skip" message="why">f.py:1: why</skipped>', Outcome.SKIPPED),
        ('<skipped type="pytest.xfail" message="known"/>', Outcome.XFAIL),
        ('<skipped message="xfail-marked test passes unexpectedly"/>', Outcome.XPASS),
        ('<skipped type="pytest.skip" message="s"/><error message="teardown">t</error>', Outcome.ERROR),
        ('<failure message="f">a</failure><error message="e">b</error>', Outcome.ERROR),
    ],
)
def test_testcase_children_map_to_outcomes_worst_wins(inner: str, outcome: Outcome) -> None:
    exit_code = 1 if outcome in (Outcome.FAILED, Outcome.ERROR) else 0
    (result,) = parse_junit(_junit(_case("test_a", inner=inner)), exit_code=exit_code).tests
    assert result.outcome is outcome


def test_message_is_attribute_plus_text_and_not_repeated() -> None:
    (result,) = parse_junit(
        _junit(_case("t", inner='<failure message="same">same</failure>')), exit_code=1
    ).tests
    assert result.message == "same"


def test_long_traceback_is_trimmed_keeping_its_end() -> None:
    text = "start\n" + "x" * 5000 + "\nE   AssertionError: the end"
    (result,) = parse_junit(
        _junit(_case("t", inner=f'<failure message="m">{text}</failure>')), exit_code=1
    ).tests
    assert result.message is not None
    assert len(result.message) <= MAX_MESSAGE_CHARS
    assert result.message.startswith("m\n…")
    assert result.message.endswith("AssertionError: the end")


def test_repeated_testcases_keep_the_first_position_and_the_worst_outcome() -> None:
    data = _junit(
        _case("test_a"),
        _case("test_b"),
        _case("test_a", inner='<error message="teardown">t</error>'),
    )
    results = parse_junit(data, exit_code=1)
    assert [(t.id, t.outcome) for t in results.tests] == [
        ("tests/test_x.py::test_a", Outcome.ERROR),
        ("tests/test_x.py::test_b", Outcome.PASSED),
    ]
    assert results.tests[0].duration_s == pytest.approx(0.02)


def test_single_testsuite_root_is_accepted() -> None:
    data = f'<testsuite name="pytest">{_case("test_a")}</testsuite>'.encode()
    assert [t.id for t in parse_junit(data, exit_code=0).tests] == ["tests/test_x.py::test_a"]


# -- unreadable reports -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("data", "fragment"),
    [
        (b"", "empty"),
        (b"  \n", "empty"),
        (b"<testsuites><testsuite>", "not well-formed XML"),
        (b"\x00\x01garbage", "not well-formed XML"),
        (b"<html><body>oops</body></html>", "not a JUnit report"),
        (
            b'<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "aaaa">]><testsuites>&a;</testsuites>',
            "DTD",
        ),
    ],
)
def test_unreadable_report_raises_result_parse_error_with_one_line(data: bytes, fragment: str) -> None:
    with pytest.raises(ResultParseError) as info:
        parse_junit(data, exit_code=1, source="r/junit.xml")
    message = str(info.value)
    assert fragment in message
    assert message.startswith("r/junit.xml: ")
    assert "\n" not in message
    assert info.value.__cause__ is None


def test_missing_report_raises_result_parse_error(tmp_path: Path) -> None:
    out = RunOutput(stdout="", stderr="ERROR: usage", exit_code=4, report_dir=tmp_path)
    with pytest.raises(ResultParseError, match="pytest wrote no JUnit report \\(exit code 4\\)"):
        PytestRunner().parse(out)


def test_report_path_that_is_a_directory_raises_result_parse_error(tmp_path: Path) -> None:
    """A directory where the report should be is refused by the safe reader (an UnsafeFileError)."""
    (tmp_path / REPORT_FILE).mkdir()
    out = RunOutput(stdout="", stderr="", exit_code=1, report_dir=tmp_path)
    with pytest.raises(UnsafeFileError, match="not a regular file"):
        PytestRunner().parse(out)


# -- exit code cross-checks -------------------------------------------------------------------------

_PASS = _junit(_case("test_a"))
_FAIL = _junit(_case("test_a", inner='<failure message="f">t</failure>'))
_EMPTY = _junit()


@pytest.mark.parametrize(
    ("data", "exit_code", "complete", "fragment"),
    [
        (_PASS, 0, True, None),
        (_FAIL, 1, True, None),
        (_EMPTY, 5, True, None),
        (_FAIL, 0, False, "exit code 0"),
        (_PASS, 1, False, "exit code 1"),
        (_PASS, 2, False, "exit code 2 (interrupted or collection errors)"),
        (_FAIL, 2, False, "exit code 2"),
        (_PASS, 3, False, "exit code 3 (internal error)"),
        (_EMPTY, 4, False, "exit code 4 (usage error)"),
        (_PASS, None, False, "killed"),
        (_PASS, 137, False, "exit code 137"),
        (_PASS, -9, False, "exit code -9"),
    ],
)
def test_exit_code_cross_check(
    data: bytes, exit_code: int | None, complete: bool, fragment: str | None
) -> None:
    results = parse_junit(data, exit_code=exit_code)
    assert results.complete is complete
    if fragment is None:
        assert results.notes == ()
    else:
        assert any(fragment in n for n in results.notes), results.notes


def test_exit_code_5_with_zero_tests_is_a_complete_empty_run() -> None:
    results = _parse_fixture("passing_none_selected.junit.xml")
    assert results.tests == ()
    assert results.complete is True


# -- invocation -------------------------------------------------------------------------------------


def test_invoke_keeps_the_argv_and_asks_for_an_xunit1_report() -> None:
    inv = PytestRunner().invoke(Command(argv=("python", "-m", "pytest", "-q")), "/reports/0")
    assert inv.argv == ["python", "-m", "pytest", "-q"]
    assert inv.env == {
        "PYTEST_ADDOPTS": "--junitxml=/reports/0/junit.xml -o junit_family=xunit1 -p no:cacheprovider"
    }


def test_invoke_runs_a_shell_command_through_bash() -> None:
    inv = PytestRunner().invoke(Command(shell="cd sub && pytest"), "/r")
    assert inv.argv == ["bash", "-c", "cd sub && pytest"]


def test_invoke_quotes_a_report_dir_with_spaces() -> None:
    inv = PytestRunner().invoke(Command(argv=("pytest",)), "/tmp/my reports")
    assert shlex.split(inv.env["PYTEST_ADDOPTS"])[0] == "--junitxml=/tmp/my reports/junit.xml"


# -- id normalisation and matching ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "normal"),
    [
        ("  tests/test_x.py::test_a  ", "tests/test_x.py::test_a"),
        ("./tests/test_x.py::test_a", "tests/test_x.py::test_a"),
        ("tests\\test_x.py::TestA::test_b", "tests/test_x.py::TestA::test_b"),
        (".\\tests\\test_x.py", "tests/test_x.py"),
        # Parameters are left alone: only the file part is a path.
        ("tests/test_x.py::test_a[a\\b]", "tests/test_x.py::test_a[a\\b]"),
    ],
)
def test_pytest_normalise_id(raw: str, normal: str) -> None:
    assert PytestRunner().normalise_id(raw) == normal


def test_match_ids_worst_duplicate_wins_unknown_is_none_and_parameters_are_not_wildcards() -> None:
    results = Results(
        runner="pytest",
        tests=(
            Result(id="tests/test_x.py::test_a", outcome=Outcome.PASSED),
            Result(id="tests/test_x.py::test_a", outcome=Outcome.FAILED),
            Result(id="tests/test_x.py::test_p[1]", outcome=Outcome.PASSED),
            Result(id="tests/test_x.py::test_b", outcome=Outcome.SKIPPED),
        ),
    )
    wanted = [
        "tests/test_x.py::test_a",
        "./tests\\test_x.py::test_b",
        "tests/test_x.py::test_p",
        "tests/test_x.py::test_p[1]",
        "tests/test_x.py::test_missing",
    ]
    matched = match_ids(PytestRunner(), wanted, results)
    assert list(matched) == wanted
    assert matched["tests/test_x.py::test_a"] is not None
    assert matched["tests/test_x.py::test_a"].outcome is Outcome.FAILED
    assert matched["./tests\\test_x.py::test_b"] is not None
    assert matched["./tests\\test_x.py::test_b"].outcome is Outcome.SKIPPED
    assert matched["tests/test_x.py::test_p"] is None
    assert matched["tests/test_x.py::test_p[1]"] is not None
    assert matched["tests/test_x.py::test_missing"] is None


def test_match_ids_against_the_captured_full_run() -> None:
    results = _parse_fixture("full.junit.xml")
    matched = match_ids(
        PytestRunner(),
        ["tests/check_classes.py::TestOuter::TestInner::test_inner_fails", "tests/check_broken.py"],
        results,
    )
    assert {k: v.outcome if v else None for k, v in matched.items()} == {
        "tests/check_classes.py::TestOuter::TestInner::test_inner_fails": Outcome.FAILED,
        "tests/check_broken.py": Outcome.ERROR,
    }


# -- registry ---------------------------------------------------------------------------------------


def test_registry_holds_the_pytest_and_tap_runners_tap_last() -> None:
    assert {"pytest", "tap"} <= set(RUNNERS)
    assert isinstance(get_runner("pytest"), PytestRunner)
    assert isinstance(get_runner("tap"), TapRunner)
    assert list(RUNNERS)[-1] == "tap"  # the fallback is asked last


def test_get_runner_unknown_name_lists_the_known_ones() -> None:
    with pytest.raises(KeyError, match=r"unknown runner 'no-such-runner' \(known: .*pytest.*tap"):
        get_runner("no-such-runner")


def _spec(*commands: Command, protocol: ResultProtocol = ResultProtocol.AUTO) -> Spec:
    return Spec(commands=commands, protocol=protocol)


def test_choose_runner_explicit_protocol_wins_over_the_command() -> None:
    assert (
        choose_runner(_spec(Command(argv=("node", "--test")), protocol=ResultProtocol.PYTEST)).name
        == "pytest"
    )
    assert choose_runner(_spec(Command(argv=("pytest",)), protocol=ResultProtocol.TAP)).name == "tap"


@pytest.mark.parametrize(
    "argv",
    [
        ("pytest",),
        ("pytest", "-q", "tests/test_x.py::test_a"),
        ("/usr/local/bin/pytest", "-x"),
        ("py.test",),
        ("python", "-m", "pytest", "-q"),
        ("/opt/venv/bin/python3.11", "-X", "dev", "-m", "pytest"),
        ("python", "-mpytest"),
        ("coverage", "run", "-m", "pytest"),
        ("timeout", "600", "pytest"),
        ("env", "PYTHONHASHSEED=0", "pytest"),
        ("uv", "run", "--frozen", "pytest"),
        ("bash", "-c", "cd src && pytest -q"),
        ("bash", "-lc", "pytest"),
    ],
)
def test_choose_runner_auto_picks_pytest_for_argv_that_runs_pytest(argv: tuple[str, ...]) -> None:
    assert choose_runner(_spec(Command(argv=argv))).name == "pytest"


@pytest.mark.parametrize(
    "argv",
    [
        ("node", "tests/run_tests.js"),
        ("npm", "test"),
        ("python", "tests/pytest_runner.py"),
        ("python", "run_tests.py", "--pytest"),
        ("echo", "pytest"),
        ("prove", "-v", "t/"),
        ("bash", "-c", "echo pytest"),
    ],
)
def test_choose_runner_auto_picks_tap_for_argv_that_does_not_run_pytest(argv: tuple[str, ...]) -> None:
    assert choose_runner(_spec(Command(argv=argv))).name == "tap"


@pytest.mark.parametrize(
    "shell",
    [
        "pytest -q",
        "cd sub && pytest",
        "cd sub;pytest",
        "pip install -e . >/dev/null\npytest -x",
        "FOO=1 BAR=2 pytest",
        "set -e; python -m pytest tests/ 2>&1 | tee log",
        "( cd pkg && py.test )",
        "timeout 10m pytest",
        "poetry run pytest -q",
        "if pytest; then echo ok; fi",
        "exec pytest",
    ],
)
def test_choose_runner_auto_picks_pytest_for_shell_strings_that_run_pytest(shell: str) -> None:
    assert choose_runner(_spec(Command(shell=shell))).name == "pytest"


@pytest.mark.parametrize(
    "shell",
    [
        "node tests/run_tests.js",
        "echo pytest",
        'echo "run pytest later"',
        "cat pytest.ini && npm test",
        "python my_pytest_wrapper.py",
        "grep -r pytest . || true",
        "npm test # not pytest",
        "echo 'unbalanced",
    ],
)
def test_choose_runner_auto_picks_tap_for_shell_strings_that_do_not_run_pytest(shell: str) -> None:
    assert choose_runner(_spec(Command(shell=shell))).name == "tap"


def test_choose_runner_auto_picks_pytest_when_any_command_runs_it() -> None:
    spec = _spec(Command(shell="npm ci"), Command(argv=("python", "-m", "pytest")))
    assert choose_runner(spec).name == "pytest"
