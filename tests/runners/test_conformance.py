"""Runner conformance: every runner, on its own captured fixtures, against the same contract.

The contract, per runner:

* the scenarios every runner must read right, each from real captured output: a pass, a failure, an
  error (or the runner's nearest form of one), a skip, a crash in the middle of the run, output cut by
  the sandbox, zero tests, and two tests that share one name;
* the cut property: for every prefix of the channel a runner reads (the run was killed, a report file
  was cut while being written) and every head+tail cut of captured standard output (the sandbox keeps a
  head and a tail, see ``patchbench.sandbox._base._Capture``), the parse never has a passed test that the
  whole output did not pass, unless it is marked incomplete (or it is no result at all). Every line end
  is tried; hypothesis picks the cuts inside lines.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from patchbench.errors import ResultParseError
from patchbench.results import SEVERITY, Outcome
from patchbench.results import TestResults as Results
from patchbench.runners import get_runner, match_ids
from patchbench.runners._base import RunOutput
from patchbench.runners.go import REPORT_FILE as GO_REPORT
from patchbench.runners.node import REPORT_FILE as NODE_REPORT
from patchbench.runners.pytest_junit import REPORT_FILE as PYTEST_REPORT

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


@dataclass(frozen=True)
class Capture:
    """One captured run, as the runner reads it.

    Attributes:
        runner: the runner's registered name.
        name: the fixture's name.
        channel: the text of the channel the runner reads (standard output or a report file).
        parse: reads a (possibly cut) channel: ``parse(text, truncated)``; ``truncated`` is the
            capture's flag for standard output that lost its middle.
        captured_stdout: the channel is captured standard output (so it can lose its middle); a report
            file can only lose its end.
    """

    runner: str
    name: str
    channel: str
    parse: Callable[[str, bool], Results]
    captured_stdout: bool

    def __str__(self) -> str:
        return f"{self.runner}/{self.name}"


def _run_json(path: Path) -> dict[str, object]:
    data: dict[str, object] = json.loads(path.read_text(encoding="utf-8"))
    return data


def _exit(run: dict[str, object]) -> int | None:
    code = run.get("exit_code")
    return code if isinstance(code, int) else None


def _parse_with(runner: str, files: dict[str, str], make: Callable[[Path], RunOutput]) -> Results:
    with tempfile.TemporaryDirectory(prefix="pb-conformance-") as d:
        for rel, text in files.items():
            (Path(d) / rel).parent.mkdir(parents=True, exist_ok=True)
            (Path(d) / rel).write_text(text, encoding="utf-8")
        return get_runner(runner).parse(make(Path(d)))


def _tap_captures() -> Iterator[Capture]:
    for tap in sorted((FIXTURES / "tap").glob("*.tap")):

        def parse(text: str, truncated: bool) -> Results:
            return _parse_with("tap", {}, lambda d: RunOutput(text, "", 0, d, stdout_truncated=truncated))

        yield Capture("tap", tap.stem, tap.read_text(encoding="utf-8"), parse, True)


def _node_captures() -> Iterator[Capture]:
    directory = FIXTURES / "node-test"
    for report in sorted(directory.glob("*.node.tap")):
        name = report.name.removesuffix(".node.tap")
        run = _run_json(directory / f"{name}.run.json")
        stderr, code = str(run.get("stderr", "")), _exit(run)

        def parse(text: str, truncated: bool, stderr: str = stderr, code: int | None = code) -> Results:
            if truncated:  # no report file: node's TAP read from captured standard output
                return _parse_with(
                    "node-test", {}, lambda d: RunOutput(text, stderr, code, d, stdout_truncated=True)
                )
            return _parse_with("node-test", {NODE_REPORT: text}, lambda d: RunOutput("", stderr, code, d))

        yield Capture("node-test", name, report.read_text(encoding="utf-8"), parse, False)


def _go_captures() -> Iterator[Capture]:
    directory = FIXTURES / "go-test"
    for stream in sorted(directory.glob("*.jsonl")):
        name = stream.stem
        run = _run_json(directory / f"{name}.run.json")
        err_file = directory / f"{name}.stderr"
        stderr = err_file.read_text(encoding="utf-8") if err_file.exists() else ""
        code = _exit(run)

        def parse(text: str, truncated: bool, stderr: str = stderr, code: int | None = code) -> Results:
            if truncated:  # no report file: the events read from captured standard output
                return _parse_with(
                    "go-test", {}, lambda d: RunOutput(text, stderr, code, d, stdout_truncated=True)
                )
            return _parse_with("go-test", {GO_REPORT: text}, lambda d: RunOutput("", stderr, code, d))

        yield Capture("go-test", name, stream.read_text(encoding="utf-8"), parse, False)


def _cargo_captures() -> Iterator[Capture]:
    directory = FIXTURES / "cargo-test"
    for out in sorted(directory.glob("*.stdout")):
        name = out.stem
        run = _run_json(directory / f"{name}.run.json")
        stderr = (directory / f"{name}.stderr").read_text(encoding="utf-8")
        code = _exit(run)

        def parse(text: str, truncated: bool, stderr: str = stderr, code: int | None = code) -> Results:
            return _parse_with(
                "cargo-test", {}, lambda d: RunOutput(text, stderr, code, d, stdout_truncated=truncated)
            )

        yield Capture("cargo-test", name, out.read_text(encoding="utf-8"), parse, True)


def _junit_captures() -> Iterator[Capture]:
    directory = FIXTURES / "junit"
    for reports in sorted(directory.glob("*.reports")):
        name = reports.name.removesuffix(".reports")
        run = _run_json(directory / f"{name}.run.json")
        stdout = (directory / f"{name}.stdout").read_text(encoding="utf-8")
        stderr = (directory / f"{name}.stderr").read_text(encoding="utf-8")
        code = _exit(run)
        files = {str(p.relative_to(reports)): p.read_text(encoding="utf-8") for p in reports.rglob("*.xml")}
        for cut_file in sorted(files):
            # The channel is one report file (cut while being written); the others stay whole.
            def parse(
                text: str,
                truncated: bool,
                cut_file: str = cut_file,
                files: dict[str, str] = files,
                stdout: str = stdout,
                stderr: str = stderr,
                code: int | None = code,
            ) -> Results:
                return _parse_with(
                    "junit", {**files, cut_file: text}, lambda d: RunOutput(stdout, stderr, code, d)
                )

            short = Path(cut_file).name
            yield Capture("junit", f"{name}:{short}", files[cut_file], parse, False)


def _junit_runs_without_reports() -> Iterator[Capture]:
    """Runs that wrote no report (killed, the JVM exited, a build error): the runner reads the output."""
    directory = FIXTURES / "junit"
    for run_file in sorted(directory.glob("*.run.json")):
        name = run_file.name.removesuffix(".run.json")
        if (directory / f"{name}.reports").exists():
            continue
        stderr = (directory / f"{name}.stderr").read_text(encoding="utf-8")
        code = _exit(_run_json(run_file))

        def parse(text: str, truncated: bool, stderr: str = stderr, code: int | None = code) -> Results:
            return _parse_with(
                "junit", {}, lambda d: RunOutput(text, stderr, code, d, stdout_truncated=truncated)
            )

        stdout = (directory / f"{name}.stdout").read_text(encoding="utf-8")
        yield Capture("junit", f"{name}:stdout", stdout, parse, True)


def _pytest_captures() -> Iterator[Capture]:
    directory = FIXTURES / "pytest"
    for report in sorted(directory.glob("*.junit.xml")):
        name = report.name.removesuffix(".junit.xml")
        code = _exit(_run_json(directory / f"{name}.run.json"))

        def parse(text: str, truncated: bool, code: int | None = code) -> Results:
            return _parse_with("pytest", {PYTEST_REPORT: text}, lambda d: RunOutput("", "", code, d))

        yield Capture("pytest", name, report.read_text(encoding="utf-8"), parse, False)


def _framework_captures() -> Iterator[Capture]:
    directory = FIXTURES / "jsframeworks"
    for report in sorted(directory.glob("*.json")):
        if report.name.endswith((".run.json", ".expected.json")):
            continue
        name = report.stem
        tool = name.split("_")[0]
        runner = get_runner(tool)
        report_file = getattr(runner, "report_file", f"{tool}.json")
        run = _run_json(directory / f"{name}.run.json")
        stderr, code = str(run.get("stderr", "")), _exit(run)

        def parse(
            text: str,
            truncated: bool,
            tool: str = tool,
            rf: str = report_file,
            e: str = stderr,
            c: int | None = code,
        ) -> Results:
            return _parse_with(tool, {rf: text}, lambda d: RunOutput("", e, c, d))

        yield Capture(tool, name, report.read_text(encoding="utf-8"), parse, False)


CAPTURES = [
    *_tap_captures(),
    *_node_captures(),
    *_go_captures(),
    *_cargo_captures(),
    *_junit_captures(),
    *_junit_runs_without_reports(),
    *_pytest_captures(),
    *_framework_captures(),
]
BY_NAME = {str(c): c for c in CAPTURES}


def _parse_or_none(capture: Capture, text: str, truncated: bool) -> Results | None:
    try:
        return capture.parse(text, truncated)
    except ResultParseError:
        return None  # no result at all: graded as such, never a pass


def _false_passes(full: Results, cut: Results | None) -> list[str]:
    """Passed tests of a cut that the whole output did not pass, when the cut claims to be complete."""
    if cut is None or not cut.complete:
        return []
    passed = {t.id for t in full.tests if t.outcome is Outcome.PASSED}
    return sorted(t.id for t in cut.tests if t.outcome is Outcome.PASSED and t.id not in passed)


def head_tail(text: str, at: int, dropped: int) -> str:
    """``text`` as the sandbox's capture keeps it when ``dropped`` characters from ``at`` are lost."""
    return text[:at] + f"\n[... {dropped} bytes dropped by patchbench ...]\n" + text[at + dropped :]


#: Runners whose results can come from captured standard output (theirs, or a fallback without report).
RESULTS_ON_STDOUT = frozenset({"tap", "node-test", "go-test", "cargo-test"})

_FULL: dict[str, Results] = {}


def _full(capture: Capture) -> Results:
    """The parse of the whole channel (no result at all reads as zero tests: then no cut may pass one)."""
    key = str(capture)
    if key not in _FULL:
        whole = _parse_or_none(capture, capture.channel, False)
        _FULL[key] = whole if whole is not None else Results(runner=capture.runner, complete=False)
    return _FULL[key]


# -- the cut property -------------------------------------------------------------------------------


def test_every_runner_has_captures_in_the_suite() -> None:
    runners = {c.runner for c in CAPTURES}
    assert runners == {
        "tap",
        "node-test",
        "go-test",
        "cargo-test",
        "junit",
        "pytest",
        "jest",
        "vitest",
        "mocha",
    }


@pytest.mark.parametrize("key", sorted(BY_NAME))
def test_no_prefix_ending_at_a_line_end_reads_as_a_complete_false_pass(key: str) -> None:
    capture = BY_NAME[key]
    full = _full(capture)
    text = capture.channel
    for at in [0, *(i + 1 for i, ch in enumerate(text) if ch == "\n")]:
        cut = _parse_or_none(capture, text[:at], False)
        assert not _false_passes(full, cut), (at, text[:at][-200:])


@pytest.mark.parametrize("key", sorted(BY_NAME))
@settings(
    max_examples=40,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(data=st.data())
def test_no_prefix_cut_inside_a_line_reads_as_a_complete_false_pass(key: str, data: st.DataObject) -> None:
    capture = BY_NAME[key]
    text = capture.channel
    at = data.draw(st.integers(min_value=0, max_value=len(text)), label="at")
    cut = _parse_or_none(capture, text[:at], False)
    assert not _false_passes(_full(capture), cut), (at, text[:at][-200:])


@pytest.mark.parametrize("key", sorted(BY_NAME))
@settings(
    max_examples=40,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(data=st.data())
def test_no_head_and_tail_cut_reads_as_a_complete_false_pass(key: str, data: st.DataObject) -> None:
    """A report file only ever loses its end; captured standard output can lose its middle (and the
    runners that read a report fall back to standard output when there is none). Where standard output
    is the results channel, a cut one is never complete."""
    capture = BY_NAME[key]
    if not capture.captured_stdout and capture.runner not in RESULTS_ON_STDOUT:
        pytest.skip("a report file: never cut in the middle")
    text = capture.channel
    at = data.draw(st.integers(min_value=0, max_value=max(0, len(text) - 1)), label="at")
    dropped = data.draw(st.integers(min_value=1, max_value=max(1, len(text) - at)), label="dropped")
    cut = _parse_or_none(capture, head_tail(text, at, dropped), True)
    assert not _false_passes(_full(capture), cut), (at, dropped)
    if capture.runner in RESULTS_ON_STDOUT:
        assert cut is None or not cut.complete, (at, dropped)


# -- scenarios --------------------------------------------------------------------------------------

# runner -> scenario -> fixture key (runner/name). Each scenario is checked by SCENARIO_CHECKS.
SCENARIOS: dict[str, dict[str, str]] = {
    "tap": {
        "pass": "tap/perl_more",
        "fail": "tap/perl_more",
        "error": "tap/py_tap13",
        "skip": "tap/perl_more",
        "crash": "tap/perl_truncated",
        "truncated": "tap/node_nested",
        "zero": "tap/perl_skip_all",
        "duplicates": "tap/perl_buffered",
    },
    "node-test": {
        "pass": "node-test/nested",
        "fail": "node-test/nested",
        "error": "node-test/multi",
        "skip": "node-test/nested",
        "crash": "node-test/killed",
        "truncated": "node-test/multi",
        "zero": "n/a: node 20 reports a test file that declares no test as one passing test named after "
        "the file, never as zero tests",
        "duplicates": "node-test/multi",
    },
    "go-test": {
        "pass": "go-test/mixed",
        "fail": "go-test/mixed",
        "error": "go-test/panic",
        "skip": "go-test/mixed",
        "crash": "go-test/killed",
        "truncated": "go-test/mixed",
        "zero": "go-test/no_tests",
        "duplicates": "go-test/mixed",
    },
    "cargo-test": {
        "pass": "cargo-test/json_full",
        "fail": "cargo-test/json_full",
        "error": "cargo-test/json_crash",
        "skip": "cargo-test/json_full",
        "crash": "cargo-test/json_killed",
        "truncated": "cargo-test/json_full",
        "zero": "cargo-test/json_filtered_none",
        "duplicates": "cargo-test/json_full",
    },
    "junit": {
        "pass": "junit/console_full:TEST-junit-jupiter.xml",
        "fail": "junit/console_full:TEST-junit-jupiter.xml",
        "error": "junit/maven_full:TEST-demo.CalcTest.xml",
        "skip": "junit/console_full:TEST-junit-jupiter.xml",
        "crash": "junit/maven_killed:stdout",
        "truncated": "junit/console_full:TEST-junit-jupiter.xml",
        "zero": "junit/maven_no_tests:stdout",
        "duplicates": "n/a: a JUnit report names a test by class and method, which Java keeps unique; "
        "repeated entries (reruns) are merged, see test_junit.py",
    },
    "pytest": {
        "pass": "pytest/full",
        "fail": "pytest/full",
        "error": "pytest/full",
        "skip": "pytest/full",
        "crash": "pytest/full_interrupted",
        "truncated": "pytest/full",
        "zero": "pytest/passing_none_selected",
        "duplicates": "n/a: pytest node ids are unique; a testcase written twice (call and teardown) is "
        "merged, see test_pytest_junit.py",
    },
}


def _has(results: Results, *outcomes: Outcome) -> bool:
    return any(t.outcome in outcomes for t in results.tests)


def _check_pass(c: Capture) -> None:
    assert _has(_full(c), Outcome.PASSED)


def _check_fail(c: Capture) -> None:
    assert _has(_full(c), Outcome.FAILED)


def _check_error(c: Capture) -> None:
    # Runners whose protocol has no "error" report a crashed test as failed.
    assert _has(_full(c), Outcome.ERROR, Outcome.FAILED)
    assert not all(t.outcome is Outcome.PASSED for t in _full(c).tests)


def _check_skip(c: Capture) -> None:
    assert _has(_full(c), Outcome.SKIPPED)


def _check_crash(c: Capture) -> None:
    full = _full(c)
    assert full.complete is False, full.notes


def _check_truncated(c: Capture) -> None:
    """The whole channel is complete; the same text from captured standard output that lost a middle
    part is not, wherever the cut falls."""
    assert _full(c).complete is True, _full(c).notes
    text = c.channel
    if c.runner in ("junit", "pytest"):
        # Report files lose their end, never their middle.
        for keep in (0.25, 0.5, 0.9):
            cut = _parse_or_none(c, text[: int(len(text) * keep)], False)
            assert cut is None or cut.complete is False
        return
    for at in range(0, len(text), max(1, len(text) // 25)):
        cut = _parse_or_none(c, head_tail(text, at, max(1, len(text) // 10)), True)
        assert cut is None or cut.complete is False, at


def _check_zero(c: Capture) -> None:
    full = _full(c)
    assert full.tests == ()
    assert not _has(full, Outcome.PASSED)


def _check_duplicates(c: Capture) -> None:
    full = _full(c)
    runner = get_runner(c.runner)
    keys = [runner.normalise_id(t.id) for t in full.tests]
    dup = next((k for k in keys if keys.count(k) > 1), None)
    assert dup is not None, "the fixture has no duplicate name"
    outcomes = [t.outcome for t in full.tests if runner.normalise_id(t.id) == dup]
    found = match_ids(runner, [dup], full)[dup]
    assert found is not None
    # One id for several tests: the worst of them is what a listed id gets.
    assert found.outcome is max(outcomes, key=lambda o: SEVERITY[o])


SCENARIO_CHECKS: dict[str, Callable[[Capture], None]] = {
    "pass": _check_pass,
    "fail": _check_fail,
    "error": _check_error,
    "skip": _check_skip,
    "crash": _check_crash,
    "truncated": _check_truncated,
    "zero": _check_zero,
    "duplicates": _check_duplicates,
}

_CASES = [(runner, scenario, key) for runner, table in SCENARIOS.items() for scenario, key in table.items()]


@pytest.mark.parametrize(("runner", "scenario", "key"), _CASES, ids=[f"{r}-{s}" for r, s, _ in _CASES])
def test_runner_reads_the_scenario(runner: str, scenario: str, key: str) -> None:
    if key.startswith("n/a: "):
        pytest.skip(key)
    capture = BY_NAME[key]
    assert capture.runner == runner
    SCENARIO_CHECKS[scenario](capture)


@pytest.mark.parametrize("runner", ["tap", "node-test", "go-test", "cargo-test", "junit", "pytest"])
def test_an_empty_channel_is_zero_tests_or_no_result(runner: str, tmp_path: Path) -> None:
    """Whatever the exit code says, nothing on the channel is never a test that passed."""
    try:
        results = get_runner(runner).parse(RunOutput("", "", 0, tmp_path))
    except ResultParseError:
        return
    assert results.tests == ()
