"""The node-test runner (and Jest/Vitest/Mocha): real captured reports and focused edge cases.

Fixtures come from ``tests/fixtures/node-test/capture.py``: node 20 run in the bwrap sandbox exactly as
the harness runs it, the workspace at ``/workspace``.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from patchbench.errors import ResultParseError
from patchbench.results import Outcome
from patchbench.results import TestResults as Results
from patchbench.runners import RUNNERS, TapRunner, choose_runner, match_ids
from patchbench.runners._base import Runner, RunOutput
from patchbench.runners.node import (
    REPORT_FILE,
    JestRunner,
    MochaRunner,
    NodeTestRunner,
    VitestRunner,
    node_test_flag,
    parse_node_tap,
    reporter_flags,
)
from patchbench.runners.tap import parse_tap
from patchbench.task import ResultProtocol, TestCommand, TestSpec

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
NODE_DIR = FIXTURES / "node-test"
FW_DIR = FIXTURES / "jsframeworks"
NODE_EXPECTED = sorted(NODE_DIR.glob("*.expected.json"))
FW_EXPECTED = sorted(FW_DIR.glob("*.expected.json"))
FW_RUNNERS: dict[str, Runner] = {"jest": JestRunner(), "vitest": VitestRunner(), "mocha": MochaRunner()}


def _pairs(results: Results) -> list[tuple[str, str]]:
    return [(t.id, t.outcome.value) for t in results.tests]


def _run_json(directory: Path, name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((directory / f"{name}.run.json").read_text(encoding="utf-8"))
    return data


def _node(name: str, tmp_path: Path) -> Results:
    """Parse a captured node run the way the harness hands it to the runner."""
    run = _run_json(NODE_DIR, name)
    report = NODE_DIR / f"{name}.node.tap"
    if report.exists():
        shutil.copyfile(report, tmp_path / REPORT_FILE)
    stdout = (NODE_DIR / f"{name}.stdout.txt").read_text(encoding="utf-8")
    return NodeTestRunner().parse(RunOutput(stdout, run["stderr"], run["exit_code"], tmp_path))


def _framework(name: str, tmp_path: Path) -> Results:
    runner = FW_RUNNERS[name.split("_")[0]]
    assert isinstance(runner, JestRunner | VitestRunner | MochaRunner)
    run = _run_json(FW_DIR, name)
    report = FW_DIR / f"{name}.json"
    if report.exists():
        shutil.copyfile(report, tmp_path / runner.report_file)
    return runner.parse(RunOutput("", run["stderr"], run["exit_code"], tmp_path))


def _by_id(results: Results) -> dict[str, Any]:
    return {t.id: t for t in results.tests}


# -- real captured output ---------------------------------------------------------------------------


def test_every_capture_has_an_expected_parse() -> None:
    assert {p.name.removesuffix(".expected.json") for p in NODE_EXPECTED} == {
        p.name.removesuffix(".run.json") for p in NODE_DIR.glob("*.run.json")
    }
    assert {p.name.removesuffix(".expected.json") for p in FW_EXPECTED} == {
        p.name.removesuffix(".run.json") for p in FW_DIR.glob("*.run.json")
    }
    assert len(NODE_EXPECTED) >= 6
    assert len(FW_EXPECTED) >= 5


@pytest.mark.parametrize("expected_file", NODE_EXPECTED, ids=lambda p: p.name.removesuffix(".expected.json"))
def test_captured_node_reports_parse_to_the_expected_results(expected_file: Path, tmp_path: Path) -> None:
    expected: dict[str, Any] = json.loads(expected_file.read_text(encoding="utf-8"))
    results = _node(expected["source"], tmp_path)
    assert results.runner == "node-test"
    assert _pairs(results) == [(t["id"], t["outcome"]) for t in expected["tests"]]
    assert results.complete is expected["complete"], results.notes
    assert (results.build_error is not None) is expected["build_error"]


@pytest.mark.parametrize("expected_file", FW_EXPECTED, ids=lambda p: p.name.removesuffix(".expected.json"))
def test_captured_framework_reports_parse_to_the_expected_results(
    expected_file: Path, tmp_path: Path
) -> None:
    expected: dict[str, Any] = json.loads(expected_file.read_text(encoding="utf-8"))
    results = _framework(expected["source"], tmp_path)
    assert results.runner == expected["runner"]
    assert _pairs(results) == [(t["id"], t["outcome"]) for t in expected["tests"]]
    assert results.complete is expected["complete"], results.notes
    assert (results.build_error is not None) is expected["build_error"]


def test_same_source_gives_the_same_ids_as_the_tap_runner_on_stdout(tmp_path: Path) -> None:
    # nested.test.mjs is ../tap/node_nested.test.mjs: an F2P list works with either protocol.
    via_tap = parse_tap((FIXTURES / "tap" / "node_nested.tap").read_text(encoding="utf-8"))
    via_report = _node("nested", tmp_path)
    assert _pairs(via_report) == _pairs(via_tap)
    wanted = ["math > multiplies wrongly", "math > division > divides", "issue #42 stays fixed"]
    for runner, results in ((NodeTestRunner(), via_report), (TapRunner(), via_tap)):
        found = match_ids(runner, wanted, results)
        assert [r.outcome if r else None for r in found.values()] == [
            Outcome.FAILED,
            Outcome.PASSED,
            Outcome.PASSED,
        ]


def test_a_syntax_error_in_the_code_under_test_is_a_build_error_with_node_s_message(tmp_path: Path) -> None:
    results = _node("load_error", tmp_path)
    assert results.build_error is not None
    assert "SyntaxError: missing ) after argument list" in results.build_error
    assert "lib/price.mjs:3" in results.build_error
    assert [t.id for t in results.tests] == ["tests/price.test.mjs"]


def test_files_that_fail_to_load_are_failed_tests_named_by_relative_path_with_stderr(tmp_path: Path) -> None:
    results = _node("multi", tmp_path)
    tests = _by_id(results)
    assert results.build_error is None  # other files ran
    assert "SyntaxError" in tests["syntax_error.test.mjs"].message
    assert "Cannot find module './no-such-module'" in tests["missing_module.test.cjs"].message
    assert any("failed to run" in n and "syntax_error.test.mjs" in n for n in results.notes)
    # node numbers each file from 1: the TAP parser's numbering notes are dropped.
    assert not any("test numbers" in n for n in results.notes)


def test_hook_failures_timeouts_and_subtests_keep_node_s_reasons(tmp_path: Path) -> None:
    tests = _by_id(_node("multi", tmp_path))
    assert "database fixture did not load" in tests["suite with a broken hook"].message
    assert tests["suite with a broken hook > is cancelled by the hook"].outcome is Outcome.FAILED
    assert "timed out after 50ms" in tests["takes too long"].message
    assert tests["parent with subtests > child passes"].outcome is Outcome.PASSED
    assert tests["parent with subtests"].outcome is Outcome.FAILED


def test_a_killed_run_is_incomplete_and_keeps_what_finished(tmp_path: Path) -> None:
    results = _node("killed", tmp_path)
    assert _pairs(results) == [("finishes quickly", "passed")]
    assert results.complete is False
    assert any("killed" in n for n in results.notes)


def test_a_process_exit_fails_the_file_with_its_stderr(tmp_path: Path) -> None:
    results = _node("crash", tmp_path)
    crash = _by_id(results)["crash.test.mjs"]
    assert crash.outcome is Outcome.FAILED
    assert "fatal: giving up" in (crash.message or "")
    assert "exitCode: 3" in (crash.message or "")


def test_typescript_through_tsx_reports_like_javascript(tmp_path: Path) -> None:
    results = _node("ts", tmp_path)
    assert _by_id(results)["split > keeps every cent"].message is not None
    assert "999 !== 1000" in (_by_id(results)["split > keeps every cent"].message or "")


# -- claiming and invoking --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("words", "index"),
    [
        (["node", "--test"], 1),
        (["node", "--test", "tests/"], 1),
        (["node", "--import", "tsx", "--test", "a.test.ts"], 3),
        (["node", "--experimental-vm-modules", "--test"], 2),
        (["nodejs", "--test", "x.mjs"], 1),
        (["tsx", "--test", "x.test.ts"], 1),
        (["node", "script.js", "--test"], None),
        (["node", "-e", "1", "--test"], None),
        (["node", "--", "--test"], None),
        (["npm", "test"], None),
        (["deno", "test"], None),
        ([], None),
    ],
)
def test_node_test_flag_counts_only_node_s_own_options(words: list[str], index: int | None) -> None:
    assert node_test_flag(words) == index


@pytest.mark.parametrize(
    "command",
    [
        TestCommand(argv=("node", "--test", "tests/")),
        TestCommand(argv=("timeout", "60", "node", "--test", "tests/a.test.mjs")),
        TestCommand(argv=("/usr/bin/node", "--test")),
        TestCommand(shell="cd pkg && NODE_ENV=test node --test test/"),
        TestCommand(argv=("bash", "-c", "node --test tests/x.test.mjs")),
    ],
)
def test_auto_protocol_picks_node_test_for_node_test_commands(command: TestCommand) -> None:
    assert choose_runner(TestSpec(commands=(command,))).name == "node-test"


@pytest.mark.parametrize(
    "command",
    [
        TestCommand(argv=("node", "tests/run.mjs")),
        TestCommand(shell="echo node --test"),
        TestCommand(argv=("node", "script.js", "--test")),
    ],
)
def test_auto_protocol_does_not_claim_other_node_commands(command: TestCommand) -> None:
    assert choose_runner(TestSpec(commands=(command,))).name != "node-test"


def test_node_test_is_registered_under_its_protocol_name() -> None:
    assert isinstance(RUNNERS[ResultProtocol.NODE.value], NodeTestRunner)


def test_invoke_puts_the_reporters_right_after_test_and_drops_the_task_s_own() -> None:
    command = TestCommand(
        argv=(
            "timeout",
            "60",
            "node",
            "--test-reporter",
            "dot",
            "--test",
            "--test-reporter=tap",
            "a.test.mjs",
        )
    )
    inv = NodeTestRunner().invoke(command, "/.patchbench-reports")
    assert inv.argv == [
        "timeout",
        "60",
        "node",
        "--test",
        *reporter_flags("/.patchbench-reports"),
        "a.test.mjs",
    ]
    assert inv.env == {}
    assert "--test-reporter-destination=/.patchbench-reports/node.tap" in inv.argv


def test_invoke_uses_node_options_for_shell_strings_and_npm() -> None:
    runner = NodeTestRunner()
    for command in (TestCommand(shell="cd pkg && node --test"), TestCommand(argv=("npm", "test"))):
        inv = runner.invoke(command, "/r")
        assert inv.argv == command.to_argv()
        assert inv.env["NODE_OPTIONS"].split() == reporter_flags("/r")


def test_a_shell_string_with_its_own_reporter_is_read_from_stdout(tmp_path: Path) -> None:
    runner = NodeTestRunner()
    command = TestCommand(shell="node --test --test-reporter=tap tests/")
    assert runner.invoke(command, "/r").env == {}
    stdout = (FIXTURES / "tap" / "node_nested.tap").read_text(encoding="utf-8")
    results = runner.parse(RunOutput(stdout, "", 1, tmp_path))
    assert len(results.tests) == 11
    assert results.notes[0].startswith("no TAP report file")


def test_no_report_and_no_tap_is_a_parse_error_naming_node_s_complaint(tmp_path: Path) -> None:
    stderr = "Could not find '/workspace/tests/missing.test.mjs'\n"
    with pytest.raises(ResultParseError, match="Could not find"):
        NodeTestRunner().parse(RunOutput("", stderr, 1, tmp_path))
    mismatch = (
        "TypeError [ERR_INVALID_ARG_VALUE]: The argument '--test-reporter' must match the number of "
        "specified '--test-reporter-destination'. Received [ 'tap', 'spec', 'dot' ]"
    )
    with pytest.raises(ResultParseError, match="names its own --test-reporter"):
        NodeTestRunner().parse(RunOutput("", mismatch, 1, tmp_path))


def test_exit_zero_with_failures_is_noted() -> None:
    results = parse_node_tap("TAP version 13\nnot ok 1 - x\n1..1\n", exit_code=0)
    assert any("exited 0" in n for n in results.notes)


# -- Jest, Vitest, Mocha ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("runner", "words", "claimed"),
    [
        (JestRunner(), ["jest"], True),
        (JestRunner(), ["npx", "jest", "tests/"], True),
        (JestRunner(), ["npx", "--no-install", "jest"], True),
        (JestRunner(), ["node", "node_modules/.bin/jest"], True),
        (JestRunner(), ["node", "--experimental-vm-modules", "node_modules/jest/bin/jest.js"], True),
        (JestRunner(), ["yarn", "jest"], True),
        (JestRunner(), ["npx", "vitest"], False),
        (JestRunner(), ["node", "jestlike.js"], False),
        (VitestRunner(), ["npx", "vitest", "run"], True),
        (VitestRunner(), ["vitest"], True),
        (MochaRunner(), ["mocha", "test/"], True),
        (MochaRunner(), ["pnpm", "exec", "mocha"], True),
        (MochaRunner(), ["node", "--test"], False),
    ],
)
def test_framework_runners_claim_their_tool(runner: Runner, words: list[str], claimed: bool) -> None:
    assert runner.claims(words) is claimed


def test_framework_invoke_appends_json_report_flags() -> None:
    jest = JestRunner().invoke(TestCommand(argv=("npx", "jest", "tests/")), "/r")
    assert jest.argv == [
        "npx",
        "jest",
        "tests/",
        "--json",
        "--outputFile=/r/jest.json",
        "--ci",
        "--watchAll=false",
    ]
    vitest = VitestRunner().invoke(TestCommand(shell="cd web && npx vitest"), "/r")
    assert vitest.argv[:2] == ["bash", "-c"]
    assert vitest.argv[2].startswith("cd web && npx vitest --run --reporter=default --reporter=json")
    mocha = MochaRunner().invoke(TestCommand(argv=("mocha",)), "/r/")
    assert mocha.argv[-2:] == ["--reporter-option", "output=/r/mocha.json"]


def test_framework_ids_match_space_joined_full_names(tmp_path: Path) -> None:
    jest = JestRunner()
    results = _framework("jest", tmp_path)
    found = match_ids(jest, ["cart total adds cents exactly", "cart > counts items"], results)
    assert [r.outcome if r else None for r in found.values()] == [Outcome.FAILED, Outcome.PASSED]
    (tmp_path / "m").mkdir()
    mocha = _framework("mocha", tmp_path / "m")
    found = match_ids(MochaRunner(), ["cart > total > adds cents exactly"], mocha)
    assert found["cart > total > adds cents exactly"] is not None


def test_framework_load_errors_are_build_errors(tmp_path: Path) -> None:
    jest = _framework("jest_load_error", tmp_path)
    assert jest.build_error is not None
    assert "Test suite failed to run" in jest.build_error
    (tmp_path / "m").mkdir()
    mocha = _framework("mocha_load_error", tmp_path / "m")
    assert mocha.build_error is not None
    assert "SyntaxError: Unexpected token '='" in mocha.build_error


def test_framework_messages_have_no_ansi_colours(tmp_path: Path) -> None:
    for result in _framework("jest", tmp_path).tests:
        assert "\x1b[" not in (result.message or "")


def test_a_missing_framework_report_is_a_parse_error(tmp_path: Path) -> None:
    for runner in FW_RUNNERS.values():
        with pytest.raises(ResultParseError, match="wrote no JSON report"):
            runner.parse(RunOutput("", "", 1, tmp_path))


def test_a_killed_jest_run_is_incomplete(tmp_path: Path) -> None:
    shutil.copyfile(FW_DIR / "jest.json", tmp_path / "jest.json")
    assert JestRunner().parse(RunOutput("", "", None, tmp_path)).complete is False


def test_names_with_control_characters_are_node_own_names(tmp_path: Path) -> None:
    """Regression: node's TAP reporter writes a tab in a name as ``\\\\t`` (control characters
    escaped, then backslashes doubled); ids kept the escape, unlike node's own test names."""
    results = _node("names", tmp_path)
    ids = [t.id for t in results.tests]
    assert "tab\tin the name" in ids
    assert "new\nline" in ids
    assert "suite\twith tab > inner\rreturn" in ids
    assert "issue #7 # SKIP is not a directive" in ids
    runner = NodeTestRunner()
    found = match_ids(runner, ["tab\tin the name", "tab in the name", "new\nline", "C:\\temp path"], results)
    assert all(found.values()), found
    assert found["new\nline"] is not None and found["new\nline"].outcome is Outcome.FAILED
