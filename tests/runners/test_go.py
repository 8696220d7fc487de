"""The go-test runner: real captured ``go test -json`` streams and focused edge cases."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from patchbench.errors import ResultParseError
from patchbench.results import Outcome

# Aliased: pytest would try to collect classes named Test* found in a test module.
from patchbench.results import TestResults as Results
from patchbench.runners import choose_runner, get_runner, match_ids
from patchbench.runners._base import RunOutput
from patchbench.runners.go import (
    MAX_MESSAGE_CHARS,
    REPORT_FILE,
    GoTestRunner,
    add_json_to_script,
    normalise_go_id,
    parse_go_test_json,
    stderr_build_failures,
    with_json,
)
from patchbench.task import ResultProtocol, TestCommand, TestSpec

GO_DIR = Path(__file__).resolve().parent.parent / "fixtures" / "go-test"
EXPECTED = sorted(GO_DIR.glob("*.expected.json"))


def _fixture(name: str) -> Results:
    run = json.loads((GO_DIR / f"{name}.run.json").read_text(encoding="utf-8"))
    stderr_file = GO_DIR / f"{name}.stderr"
    stderr = stderr_file.read_text(encoding="utf-8") if stderr_file.exists() else ""
    return parse_go_test_json(
        (GO_DIR / f"{name}.jsonl").read_text(encoding="utf-8"), stderr=stderr, exit_code=run["exit_code"]
    )


def _event(action: str, test: str | None = None, pkg: str = "example.com/m", **extra: Any) -> str:
    e: dict[str, Any] = {"Action": action, "Package": pkg, **extra}
    if test is not None:
        e["Test"] = test
    return json.dumps(e)


# -- real captured output ---------------------------------------------------------------------------


def test_every_go_fixture_has_an_expected_parse() -> None:
    names = {p.name.removesuffix(".expected.json") for p in EXPECTED}
    assert names == {p.name.removesuffix(".run.json") for p in GO_DIR.glob("*.run.json")}
    assert {"mixed", "panic", "timeout", "killed", "build_error", "vet_error", "setup_failed"} <= names


@pytest.mark.parametrize("expected_file", EXPECTED, ids=lambda p: p.name.removesuffix(".expected.json"))
def test_captured_stream_parses_to_the_expected_results(expected_file: Path) -> None:
    expected: dict[str, Any] = json.loads(expected_file.read_text(encoding="utf-8"))
    name = expected["source"].removesuffix(".jsonl")
    if "raises" in expected:
        with pytest.raises(ResultParseError, match=expected["raises"]):
            _fixture(name)
        return
    results = _fixture(name)
    assert results.runner == "go-test"
    # Packages run concurrently: their order in the stream may change between captures.
    assert sorted((t.id, t.outcome.value) for t in results.tests) == sorted(
        (t["id"], t["outcome"]) for t in expected["tests"]
    )
    assert results.complete is expected["complete"], results.notes
    assert (results.build_error is not None) is expected["build_error"]
    for fragment in expected.get("notes_include", []):
        assert any(fragment in note for note in results.notes), (fragment, results.notes)
    for fragment in expected.get("build_error_includes", []):
        assert fragment in (results.build_error or ""), fragment
    by_id = {t.id: t for t in results.tests}
    for test_id, fragment in expected.get("messages_include", {}).items():
        assert fragment in (by_id[test_id].message or ""), (test_id, by_id[test_id].message)


def test_go_before_1_24_build_failure_is_read_from_standard_error() -> None:
    """Regression: Go 1.23 reports a package that does not build on standard error only (``# pkg`` and
    ``file:line:col:`` lines); the stream just fails the package. No build error was set, and the other
    packages' passes came back as the result."""
    results = _fixture("build_error_go1_23")
    assert results.build_error is not None
    assert "broken/broken.go:6:9: cannot use n / 2" in results.build_error
    assert "brokentest/ok_test.go:7:11: undefined: Missing" in results.build_error
    assert results.complete is False


def test_go_before_1_24_build_failure_without_its_stderr_still_fails_the_build(tmp_path: Path) -> None:
    """Standard error cut or lost: the stream's ``[build failed]`` package output is enough."""
    stream = (GO_DIR / "build_error_go1_23.jsonl").read_text(encoding="utf-8")
    results = parse_go_test_json(stream, stderr="", exit_code=1)
    assert results.build_error is not None
    assert "example.com/builderr/broken: build failed" in results.build_error
    assert results.complete is False


def test_stderr_build_blocks_need_a_go_file_error() -> None:
    """A ``# pkg`` header with only linker or cgo chatter under it is not a build failure."""
    stderr = (
        "# example.com/x\nld: warning: something\n# example.com/y [example.com/y.test]\ny/y.go:3:1: bad\n"
    )
    assert stderr_build_failures(stderr) == {
        "example.com/y": "# example.com/y [example.com/y.test]\ny/y.go:3:1: bad"
    }


def test_go_before_1_20_text_build_failed_line_is_a_build_error() -> None:
    """Go before 1.20 printed ``FAIL pkg [build failed]`` as text among the events (not captured here:
    the toolchains before 1.21 cannot be fetched as modules; the line is go's fixed format)."""
    events = (GO_DIR / "mixed.jsonl").read_text(encoding="utf-8")
    results = parse_go_test_json(events + "FAIL\texample.com/gone [build failed]\n", exit_code=1)
    assert results.build_error is not None and "example.com/gone" in results.build_error


def test_a_package_without_a_start_event_was_cut_off_its_head() -> None:
    """Per-package start/end: a head+tail cut between packages leaves a package that never started."""
    lines = (GO_DIR / "mixed.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)
    first_pkg = json.loads(lines[0])["Package"]
    cut = [
        ln
        for ln in lines
        if json.loads(ln).get("Package") != first_pkg or json.loads(ln)["Action"] != "start"
    ]
    whole = parse_go_test_json(
        "".join(lines), exit_code=json.loads((GO_DIR / "mixed.run.json").read_text())["exit_code"]
    )
    assert not any("without a start event" in n for n in whole.notes)
    results = parse_go_test_json("".join(cut), exit_code=1)
    assert results.complete is False
    assert any("without a start event" in n for n in results.notes)


def _passing_packages_only() -> str:
    events = [json.loads(ln) for ln in (GO_DIR / "mixed.jsonl").read_text(encoding="utf-8").splitlines()]
    passed = {e["Package"] for e in events if e["Action"] == "pass" and not e.get("Test")}
    return "".join(json.dumps(e) + "\n" for e in events if e.get("Package") in passed)


def test_a_nonzero_exit_with_nothing_failed_is_incomplete() -> None:
    """The exit code is a completeness signal: go test exits 0 when every package passed."""
    stream = _passing_packages_only()
    assert parse_go_test_json(stream, exit_code=0).complete is True
    results = parse_go_test_json(stream, exit_code=1)
    assert results.complete is False
    assert any("no package or test failed" in n for n in results.notes)


def test_truncated_standard_output_read_without_a_report_is_incomplete(tmp_path: Path) -> None:
    stdout = (GO_DIR / "mixed.jsonl").read_text(encoding="utf-8")
    out = RunOutput(stdout=stdout, stderr="", exit_code=1, report_dir=tmp_path, stdout_truncated=True)
    results = GoTestRunner().parse(out)
    assert results.complete is False
    assert any("truncated" in n for n in results.notes)


def test_passing_tests_carry_no_message_and_failures_drop_go_framing_lines() -> None:
    tests = {t.id: t for t in _fixture("mixed").tests}
    assert tests["example.com/mixed/strutil.TestShout"].message is None  # it logged, but passed
    divide = tests["example.com/mixed/calc.TestDivide"].message or ""
    assert divide == "calc_test.go:20: Divide(6, -3) = 2, want -2"
    assert all(t.duration_s == 0.0 for t in tests.values())


def test_packages_without_tests_yield_no_results() -> None:
    ids = [t.id for t in _fixture("mixed").tests]
    assert not [i for i in ids if "/nodeps" in i or "/notests" in i]


def test_build_error_of_one_package_keeps_the_others_results_and_lists_every_message() -> None:
    results = _fixture("build_error")
    assert [t.id for t in results.tests] == ["example.com/builderr/good.TestThree"]
    assert results.build_error is not None
    assert results.build_error.startswith("# example.com/builderr/broken")
    assert "declared and not used: x" in results.build_error


def test_usage_error_is_no_result_and_says_so() -> None:
    run = json.loads((GO_DIR / "usage_error.run.json").read_text(encoding="utf-8"))
    assert run["exit_code"] == 2
    with pytest.raises(
        ResultParseError, match=r"usage error, exit 2\): invalid value \"abc\" for flag -count"
    ):
        _fixture("usage_error")
    # Not an infrastructure code: `make test` also exits 2 when the code does not compile.
    assert 2 not in GoTestRunner.infra_exit_codes


# -- ids --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("given", "normal"),
    [
        ("TestX", "TestX"),
        ("TestX/sub case", "TestX/sub_case"),
        ("  TestX/a  b ", "TestX/a__b"),
        ("example.com/m/pkg.TestX/sub case", "TestX/sub_case"),
        ("gopkg.in/yaml.v3.TestDecode", "TestDecode"),
        ("_/workspace/sub.TestS", "TestS"),
        ("command-line-arguments.ExampleAdd", "ExampleAdd"),
        ("TestX/v1.TestY", "TestX/v1.TestY"),  # a bare id whose subtest holds a dot
        ("example.com/m.FuzzReverse/seed#0", "FuzzReverse/seed#0"),
        ("pkg.NotATest", "pkg.NotATest"),
    ],
)
def test_normalise_id_reduces_qualified_and_bare_forms_to_the_go_test_name(given: str, normal: str) -> None:
    assert normalise_go_id(given) == normal
    assert GoTestRunner().normalise_id(given) == normal


def test_listed_ids_match_in_both_forms_and_a_shared_name_takes_the_worse_outcome() -> None:
    runner = get_runner("go-test")
    results = _fixture("mixed")
    found = match_ids(
        runner,
        [
            "TestDivide",
            "example.com/mixed/calc.TestAdd",
            "TestTable/positive numbers",
            "TestTable/positive_numbers#01",
            "TestNested/outer/v1.2/path",
            "TestShared",
            "example.com/mixed/calc.TestShared",
            "TestNope",
        ],
        results,
    )
    outcome = {k: (v.outcome if v else None) for k, v in found.items()}
    assert outcome == {
        "TestDivide": Outcome.FAILED,
        "example.com/mixed/calc.TestAdd": Outcome.PASSED,
        "TestTable/positive numbers": Outcome.PASSED,
        "TestTable/positive_numbers#01": Outcome.PASSED,
        "TestNested/outer/v1.2/path": Outcome.PASSED,
        # calc.TestShared passes, strutil.TestShared fails: never a pass for either spelling.
        "TestShared": Outcome.FAILED,
        "example.com/mixed/calc.TestShared": Outcome.FAILED,
        "TestNope": None,
    }


# -- claiming and invocation ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("command", "claimed"),
    [
        (TestCommand(argv=("go", "test", "./...")), True),
        (TestCommand(argv=("/usr/local/go/bin/go", "test", "-run", "TestX", ".")), True),
        (TestCommand(shell="cd sub && timeout 60 go test ./..."), True),
        (TestCommand(shell="go -C sub test ./..."), True),
        (TestCommand(argv=("bash", "-lc", "GOFLAGS=-v go test ./...")), True),
        (TestCommand(argv=("go", "vet", "./...")), False),
        (TestCommand(argv=("go", "build", "./...")), False),
        (TestCommand(shell="echo go test"), False),
        (TestCommand(argv=("cargo", "test")), False),
    ],
)
def test_auto_protocol_picks_go_test_only_for_go_test_commands(command: TestCommand, claimed: bool) -> None:
    runner = choose_runner(TestSpec(commands=(command,)))
    assert (runner.name == "go-test") is claimed


def test_protocol_go_names_this_runner() -> None:
    spec = TestSpec(commands=(TestCommand(shell="make test"),), protocol=ResultProtocol.GO)
    assert isinstance(choose_runner(spec), GoTestRunner)


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["go", "test", "./..."], ["go", "test", "-json", "./..."]),
        (["go", "test", "-json", "./..."], ["go", "test", "-json", "./..."]),
        (["go", "test", "./...", "-json"], ["go", "test", "./...", "-json"]),
        (["go", "test", "./...", "-args", "-json"], ["go", "test", "-json", "./...", "-args", "-json"]),
        (
            ["timeout", "60", "go", "-C", "sub", "test", "."],
            ["timeout", "60", "go", "-C", "sub", "test", "-json", "."],
        ),
        (
            ["env", "GOFLAGS=-v", "/opt/go/bin/go", "test"],
            ["env", "GOFLAGS=-v", "/opt/go/bin/go", "test", "-json"],
        ),
        (["go", "vet", "./..."], ["go", "vet", "./..."]),
        (["bash", "-c", "go test ./..."], ["bash", "-c", "go test -json ./..."]),
    ],
)
def test_json_is_added_after_test_and_nothing_else_changes(argv: list[str], expected: list[str]) -> None:
    assert with_json(TestCommand(argv=tuple(argv))) == expected


@pytest.mark.parametrize(
    ("script", "expected"),
    [
        ("go test ./...", "go test -json ./..."),
        ("cd sub && go test -run 'Test A' ./...", "cd sub && go test -json -run 'Test A' ./..."),
        (
            "go vet ./... && go test ./a; go test -json ./b",
            "go vet ./... && go test -json ./a; go test -json ./b",
        ),
        ("(/usr/local/go/bin/go test .)", "(/usr/local/go/bin/go test -json .)"),
        ("go -C sub test\n", "go -C sub test -json\n"),
        ("cargo test && gofmt -l .", "cargo test && gofmt -l ."),
        ("go testing", "go testing"),
    ],
)
def test_json_is_added_to_each_go_test_of_a_shell_string(script: str, expected: str) -> None:
    assert add_json_to_script(script) == expected
    assert with_json(TestCommand(shell=script)) == ["bash", "-c", expected]


def test_invocation_sends_standard_output_to_the_report_file_and_keeps_the_exit_code(
    tmp_path: Path,
) -> None:
    line = _event("run", "TestA")
    command = TestCommand(shell=f"echo '{line}'; echo to-stderr >&2; exit 3")
    inv = GoTestRunner().invoke(command, str(tmp_path))
    proc = subprocess.run(inv.argv, capture_output=True, text=True, check=False)
    assert proc.returncode == 3
    assert proc.stdout == ""
    assert proc.stderr == "to-stderr\n"
    assert (tmp_path / REPORT_FILE).read_text() == line + "\n"


# -- parsing edge cases -----------------------------------------------------------------------------


def test_parse_reads_the_report_file_and_any_standard_output(tmp_path: Path) -> None:
    (tmp_path / REPORT_FILE).write_text(
        "\n".join([_event("start"), _event("run", "TestA"), _event("pass", "TestA", Elapsed=0.5)]) + "\n"
    )
    stdout = "\n".join([_event("run", "TestB"), _event("fail", "TestB"), _event("fail")])
    results = GoTestRunner().parse(RunOutput(stdout=stdout, stderr="", exit_code=1, report_dir=tmp_path))
    assert [(t.id, t.outcome, t.duration_s) for t in results.tests] == [
        ("example.com/m.TestA", Outcome.PASSED, 0.5),
        ("example.com/m.TestB", Outcome.FAILED, None),
    ]
    assert results.complete


def test_no_report_and_no_go_error_raises(tmp_path: Path) -> None:
    out = RunOutput(stdout="", stderr="bash: go: command not found", exit_code=127, report_dir=tmp_path)
    with pytest.raises(ResultParseError, match="no go test -json events"):
        GoTestRunner().parse(out)


def test_compiler_errors_on_stderr_without_events_are_a_build_error() -> None:
    stderr = "# example.com/m\n./m.go:3:1: syntax error: non-declaration statement outside function body\n"
    results = parse_go_test_json("", stderr=stderr, exit_code=1)
    assert results.build_error is not None
    assert "syntax error" in results.build_error
    assert not results.tests


def test_repeated_runs_keep_the_worst_outcome() -> None:
    stream = [
        _event("start"),
        _event("run", "TestFlaky"),
        _event("pass", "TestFlaky"),
        _event("run", "TestFlaky"),
        _event("output", "TestFlaky", Output="    x_test.go:9: second run failed\n"),
        _event("fail", "TestFlaky"),
        _event("fail"),
    ]
    results = parse_go_test_json("\n".join(stream), exit_code=1)
    assert [(t.id, t.outcome) for t in results.tests] == [("example.com/m.TestFlaky", Outcome.FAILED)]
    assert results.tests[0].message == "x_test.go:9: second run failed"
    assert any("repeated" in n for n in results.notes)


def test_non_json_lines_are_counted_and_malformed_json_makes_the_run_incomplete() -> None:
    stream = [
        "building...",
        _event("start"),
        _event("run", "TestA"),
        _event("pass", "TestA"),
        "{oops",
        _event("pass"),
    ]
    results = parse_go_test_json("\n".join(stream), exit_code=0)
    assert [t.outcome for t in results.tests] == [Outcome.PASSED]
    assert any("1 non-JSON line" in n for n in results.notes)
    assert results.complete is False


def test_a_failing_package_without_a_failing_test_is_incomplete() -> None:
    stream = [
        _event("start"),
        _event("run", "TestA"),
        _event("pass", "TestA"),
        _event("output", Output="TestMain: leaked goroutines\n"),
        _event("output", Output="FAIL\texample.com/m\t0.01s\n"),
        _event("fail"),
    ]
    results = parse_go_test_json("\n".join(stream), exit_code=1)
    assert results.complete is False
    assert any(
        "failed although none of its tests did" in n and "leaked goroutines" in n for n in results.notes
    )


def test_long_failure_output_is_clipped() -> None:
    stream = [_event("start"), _event("run", "TestBig")]
    stream += [
        _event("output", "TestBig", Output=f"    x_test.go:1: line {i} " + "y" * 50 + "\n")
        for i in range(200)
    ]
    stream += [_event("fail", "TestBig"), _event("fail")]
    (result,) = parse_go_test_json("\n".join(stream), exit_code=1).tests
    assert result.message is not None
    assert len(result.message) == MAX_MESSAGE_CHARS
    assert result.message.startswith("x_test.go:1: line 0 ")


def test_a_flood_of_output_is_cut_at_the_report_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("patchbench.runners.go.MAX_REPORT_BYTES", 200)
    lines = [_event("start"), _event("run", "TestA"), _event("pass", "TestA")]
    lines += [_event("output", "TestB", Output="x" * 40)] * 20
    (tmp_path / REPORT_FILE).write_text("\n".join(lines))
    results = GoTestRunner().parse(RunOutput(stdout="", stderr="", exit_code=1, report_dir=tmp_path))
    assert results.complete is False
    assert any("cut at" in n for n in results.notes)


def test_the_wrapper_bounds_the_report_and_keeps_the_exit_status(tmp_path: Path) -> None:
    from patchbench.runners.go import MAX_REPORT_BYTES

    command = TestCommand(argv=("head", "-c", str(2 * MAX_REPORT_BYTES), "/dev/zero"))
    inv = GoTestRunner().invoke(command, str(tmp_path))
    proc = subprocess.run(inv.argv, capture_output=True, check=False)
    assert (tmp_path / REPORT_FILE).stat().st_size == MAX_REPORT_BYTES
    assert proc.returncode != 0  # the writer got SIGPIPE: a flood never looks like a clean exit
