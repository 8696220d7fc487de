"""The cargo-test runner: real captured cargo/libtest output (tests/fixtures/cargo-test) and edge cases."""

from __future__ import annotations

import functools
import json
import os
import shutil
import stat
import subprocess
from pathlib import Path
from typing import Any

import pytest

from patchbench.errors import ResultParseError
from patchbench.results import Outcome
from patchbench.results import TestResults as Results
from patchbench.runners import choose_runner, get_runner, match_ids
from patchbench.runners._base import RunOutput
from patchbench.runners.cargo import (
    CARGO_ENV,
    LIBTEST_ARGS,
    LIBTEST_UNSTABLE,
    LOG_FILE,
    MAX_MESSAGE_CHARS,
    CargoTestRunner,
    build_error_message,
    parse_cargo_test,
    rewrite_cargo_test_args,
)
from patchbench.task import ResultProtocol, TestCommand, TestSpec

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "cargo-test"
EXPECTED = sorted(FIXTURES.glob("*.expected.json"))
JSON_ARGS = list(LIBTEST_ARGS)


def _load(name: str) -> tuple[str, str, int | None]:
    run = json.loads((FIXTURES / f"{name}.run.json").read_text(encoding="utf-8"))
    stdout = (FIXTURES / f"{name}.stdout").read_text(encoding="utf-8")
    stderr = (FIXTURES / f"{name}.stderr").read_text(encoding="utf-8")
    return stdout, stderr, run["exit_code"]


def _parse(name: str) -> Results:
    return parse_cargo_test(*_load(name))


def _by_id(results: Results) -> dict[str, Any]:
    return {t.id: t for t in results.tests}


# -- real captured output ---------------------------------------------------------------------------


def test_every_capture_has_an_expected_parse_and_a_run_record() -> None:
    captured = {p.name.removesuffix(".stdout") for p in FIXTURES.glob("*.stdout")}
    assert {p.name.removesuffix(".expected.json") for p in EXPECTED} == captured
    assert {p.name.removesuffix(".run.json") for p in FIXTURES.glob("*.run.json")} == captured
    assert len(captured) >= 10


@pytest.mark.parametrize("expected_file", EXPECTED, ids=lambda p: p.name.removesuffix(".expected.json"))
def test_captured_output_parses_to_the_expected_ids_outcomes_and_completeness(expected_file: Path) -> None:
    expected: dict[str, Any] = json.loads(expected_file.read_text(encoding="utf-8"))
    if "raises" in expected:
        with pytest.raises(ResultParseError) as info:
            _parse(expected["source"])
        assert expected["raises"] in str(info.value)
        return
    results = _parse(expected["source"])
    assert results.runner == "cargo-test"
    # Text output lists tests in completion order, which threads make vary: compare as multisets.
    got = sorted((t.id, t.outcome.value) for t in results.tests)
    assert got == sorted((t["id"], t["outcome"]) for t in expected["tests"])
    assert results.complete is expected["complete"], results.notes
    assert (results.build_error is not None) is expected["build_error"]
    for fragment in expected.get("build_error_includes", []):
        assert fragment in (results.build_error or "")
    tests = _by_id(results)
    for test_id, fragment in expected.get("messages_include", {}).items():
        assert fragment in (tests[test_id].message or ""), (test_id, tests[test_id].message)
    for fragment in expected.get("notes_include", []):
        assert any(fragment in n for n in results.notes), (fragment, results.notes)


def test_json_results_keep_libtest_order_and_exec_time() -> None:
    results = _parse("json_full")
    ids = [t.id for t in results.tests]
    # Suites in cargo's order: lib, bin, tests/api.rs, tests/other.rs, doc tests.
    assert ids.index("tests::passes") < ids.index("tests::tool_adds") < ids.index("integration_ok")
    assert ids[-1].startswith("src/lib.rs - add")
    passed = _by_id(results)["tests::passes"]
    assert passed.duration_s is not None
    assert 0 <= passed.duration_s < 1
    assert _by_id(results)["tests::ignored_plain"].duration_s is None


def test_failure_messages_drop_backtrace_hints_and_keep_the_panic() -> None:
    tests = _by_id(_parse("json_full"))
    msg = tests["index_out_of_bounds"].message or ""
    assert "panicked at tests/api.rs:12:21" in msg
    assert "index out of bounds: the len is 0 but the index is 3" in msg
    assert "RUST_BACKTRACE" not in msg
    assert tests["tests::passes"].message is None
    assert tests["tests::ignored_plain"].message is None


def test_doc_tests_keep_rustdoc_names_and_compile_fail_has_no_suffix() -> None:
    tests = _by_id(_parse("json_full"))
    assert tests["src/lib.rs - add (line 5)"].outcome is Outcome.PASSED
    assert tests["src/lib.rs - add (line 13)"].outcome is Outcome.SKIPPED  # ```ignore
    assert tests["src/lib.rs - add (line 17)"].outcome is Outcome.PASSED  # ```compile_fail
    text = _by_id(_parse("text_full"))
    assert text["src/lib.rs - add (line 17)"].outcome is Outcome.PASSED
    assert text["tests::should_panic_ok"].outcome is Outcome.PASSED


def test_json_and_text_captures_of_the_same_run_agree() -> None:
    as_json = sorted((t.id, t.outcome) for t in _parse("json_full").tests)
    as_text = sorted((t.id, t.outcome) for t in _parse("text_full").tests)
    assert as_json == as_text


def test_quiet_command_still_gets_json() -> None:
    stdout, _, _ = _load("json_quiet")
    assert stdout.lstrip().startswith("{")
    assert "no libtest JSON" not in " ".join(_parse("json_quiet").notes)


def test_a_crashed_binary_errors_its_unfinished_test_and_later_binaries_still_count() -> None:
    results = _parse("json_crash")
    tests = _by_id(results)
    aborted = tests["tests::aborts"]
    assert aborted.outcome is Outcome.ERROR
    assert "signal: 6" in (aborted.message or "")
    assert tests["tests::passes"].outcome is Outcome.PASSED  # finished before the abort
    assert tests["integration_ok"].outcome is Outcome.PASSED  # a later binary
    assert results.complete is False


def test_a_killed_run_keeps_finished_tests_and_errors_the_running_one() -> None:
    results = _parse("json_killed")
    tests = _by_id(results)
    assert tests["tests::hangs"].outcome is Outcome.ERROR
    assert tests["tests::should_panic_ok"].outcome is Outcome.PASSED
    assert results.complete is False
    assert any("no exit code" in n for n in results.notes)


def test_build_error_reports_the_compiler_message_and_no_tests() -> None:
    results = _parse("json_build_error")
    assert results.tests == ()
    assert results.build_error is not None
    assert results.build_error.startswith("error[E0308]: mismatched types")
    assert "expected `u32`, found `&str`" in results.build_error
    assert "waiting for other jobs" not in results.build_error
    # cargo's progress lines before the first error are not part of it.
    assert "Compiling fixturecrate" not in results.build_error


def test_zero_tests_after_a_filter_is_a_complete_empty_run() -> None:
    results = _parse("json_filtered_none")
    assert results.tests == ()
    assert results.complete is True
    assert results.build_error is None


def test_terse_output_names_failures_only_and_is_incomplete() -> None:
    results = _parse("text_terse")
    assert {t.outcome for t in results.tests} == {Outcome.FAILED}
    assert "tests::assert_fails" in _by_id(results)
    assert "one plus one" in (_by_id(results)["tests::assert_fails"].message or "")
    assert results.complete is False


def test_nocapture_output_between_name_and_result_is_read() -> None:
    tests = _by_id(_parse("text_nocapture"))
    assert tests["tests::prints_then_fails"].outcome is Outcome.FAILED
    assert tests["tests::passes"].outcome is Outcome.PASSED
    assert tests["tests::ignored_with_reason"].message == "needs network"


def test_runner_parse_reads_stdout_and_stderr_of_a_run_output(tmp_path: Path) -> None:
    stdout, stderr, code = _load("json_build_error")
    results = CargoTestRunner().parse(RunOutput(stdout, stderr, code, tmp_path))
    assert results.build_error is not None


# -- duplicates and id matching ---------------------------------------------------------------------


def test_same_name_in_two_binaries_matches_the_worst_and_is_noted() -> None:
    results = _parse("json_full")
    assert [t.outcome for t in results.tests if t.id == "shared_name"] == [Outcome.PASSED, Outcome.FAILED]
    assert any("shared_name" in n for n in results.notes)
    matched = match_ids(
        CargoTestRunner(), ["shared_name", "grouped::in_a_module", "api::integration_ok"], results
    )
    assert matched["shared_name"] is not None
    assert matched["shared_name"].outcome is Outcome.FAILED
    assert matched["grouped::in_a_module"] is not None
    # A binary-name prefix is not an alias: it would be ambiguous with a module path.
    assert matched["api::integration_ok"] is None


@pytest.mark.parametrize(
    ("written", "normal"),
    [
        ("tests::foo", "tests::foo"),
        ("  tests::foo \n", "tests::foo"),
        ("tests::foo - should panic", "tests::foo"),
        ("src/lib.rs - add (line 17) - compile fail", "src/lib.rs - add (line 17)"),
        ("src/lib.rs  -  add (line 3)", "src/lib.rs - add (line 3)"),
    ],
)
def test_normalise_id(written: str, normal: str) -> None:
    assert CargoTestRunner().normalise_id(written) == normal


def test_match_ids_accepts_text_display_suffixes_in_lists() -> None:
    results = _parse("json_full")
    matched = match_ids(CargoTestRunner(), ["tests::should_panic_ok - should panic"], results)
    assert matched["tests::should_panic_ok - should panic"] is not None


# -- claims and registry ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("words", "claimed"),
    [
        (["cargo", "test"], True),
        (["cargo", "t", "--lib"], True),
        (["cargo", "+nightly", "test"], True),
        (["cargo", "--color", "never", "test"], True),
        (["cargo", "-q", "--locked", "test", "--", "x"], True),
        (["cargo", "-Z", "unstable-options", "test"], True),
        (["cargo", "build"], False),
        (["cargo", "nextest", "run"], False),
        (["cargo", "--color", "test"], False),
        (["cargo"], False),
        (["cargo-test"], False),
        (["echo", "cargo", "test"], False),
    ],
)
def test_claims(words: list[str], claimed: bool) -> None:
    assert CargoTestRunner().claims(words) is claimed


def test_registered_and_chosen_for_cargo_commands() -> None:
    assert isinstance(get_runner("cargo-test"), CargoTestRunner)
    for command in (
        TestCommand(argv=("cargo", "test", "--quiet")),
        TestCommand(argv=("timeout", "600", "cargo", "test")),
        TestCommand(shell="cd crates/core && RUST_LOG=debug cargo test -- --exact a::b"),
        TestCommand(argv=("bash", "-lc", "cargo build && cargo test")),
    ):
        assert choose_runner(TestSpec(commands=(command,))).name == "cargo-test", command
    assert choose_runner(
        TestSpec(commands=(TestCommand(argv=("cargo", "test")),), protocol=ResultProtocol.CARGO)
    )


# -- invocation -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "rewritten"),
    [
        (["test"], ["test", "--no-fail-fast", "--", *JSON_ARGS]),
        (["test", "--quiet"], ["test", "--quiet", "--no-fail-fast", "--", *JSON_ARGS]),
        (["test", "--no-fail-fast", "--lib"], ["test", "--no-fail-fast", "--lib", "--", *JSON_ARGS]),
        (
            ["test", "foo", "--", "--exact", "--test-threads", "1"],
            ["test", "foo", "--no-fail-fast", "--", "--exact", "--test-threads", "1", *JSON_ARGS],
        ),
        (["test", "--", "--format", "pretty"], ["test", "--no-fail-fast", "--", "--format", "pretty"]),
        (["test", "--", "--format=terse"], ["test", "--no-fail-fast", "--", "--format=terse"]),
        (
            ["test", "--", "-Zunstable-options", "--format", "junit"],
            ["test", "--no-fail-fast", "--", "-Zunstable-options", "--format", "junit"],
        ),
    ],
)
def test_rewrite_cargo_test_args(args: list[str], rewritten: list[str]) -> None:
    assert rewrite_cargo_test_args(args) == rewritten


def test_invoke_rewrites_an_argv_after_wrappers_and_sets_the_environment() -> None:
    runner = CargoTestRunner()
    inv = runner.invoke(TestCommand(argv=("env", "RUST_LOG=1", "cargo", "test", "-q")), "/reports")
    assert inv.argv[:4] == [
        "bash",
        "-c",
        'set -o pipefail; "$@" | tee -a "$PATCHBENCH_CARGO_LOG"',
        "cargo-test",
    ]
    assert inv.argv[4:] == ["env", "RUST_LOG=1", "cargo", "test", "-q", "--no-fail-fast", "--", *JSON_ARGS]
    assert inv.env == {
        "RUSTC_BOOTSTRAP": LIBTEST_UNSTABLE,
        "CARGO_TERM_COLOR": "never",
        "PATCHBENCH_CARGO_LOG": f"/reports/{LOG_FILE}",
    }
    inv = runner.invoke(TestCommand(argv=("/usr/bin/cargo", "+stable", "test", "+x")), "/reports")
    assert inv.argv[4:] == ["/usr/bin/cargo", "test", "+x", "--no-fail-fast", "--", *JSON_ARGS]


def test_invoke_leaves_other_commands_alone() -> None:
    runner = CargoTestRunner()
    for argv in (
        ("cargo", "build"),
        ("make", "test"),
        ("sh", "-c", "cargo test"),
        ("cargo", "nextest", "run"),
    ):
        inv = runner.invoke(TestCommand(argv=argv), "/reports")
        assert inv.argv == list(argv)
        assert inv.env == {}
    inv = runner.invoke(TestCommand(shell="make test"), "/reports")
    assert inv.argv == ["bash", "-c", "make test"]


def test_invoke_wraps_shell_strings_and_bash_c_scripts() -> None:
    runner = CargoTestRunner()
    inv = runner.invoke(TestCommand(shell="cargo test --lib"), "/reports")
    assert inv.argv[:2] == ["bash", "-c"]
    assert inv.argv[2].startswith("cargo() {")
    assert inv.argv[2].endswith("\ncargo test --lib")
    assert inv.env["RUSTC_BOOTSTRAP"] == LIBTEST_UNSTABLE
    inv = runner.invoke(TestCommand(argv=("bash", "-lc", "cargo test", "name0")), "/reports")
    assert inv.argv[:2] == ["bash", "-lc"]
    assert inv.argv[2].startswith("cargo() {")
    assert inv.argv[3] == "name0"


@pytest.fixture
def fake_cargo(tmp_path: Path) -> Path:
    """A ``cargo`` that prints its arguments one per line and exits with ``$FAKE_EXIT``, first on PATH."""
    if shutil.which("bash") is None:
        pytest.skip("bash is not installed")
    bindir = tmp_path / "bin"
    bindir.mkdir()
    script = bindir / "cargo"
    script.write_text('#!/bin/sh\nfor a in "$@"; do printf "%s\\n" "$a"; done\nexit "${FAKE_EXIT:-0}"\n')
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    return bindir


def _run_fake(
    inv_argv: list[str], env: dict[str, str], bindir: Path, **extra: str
) -> subprocess.CompletedProcess[str]:
    full = {**env, **extra, "PATH": f"{bindir}:{os.environ.get('PATH', '/usr/bin:/bin')}"}
    return subprocess.run(inv_argv, env=full, capture_output=True, text=True, check=False)


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("cargo test -q", ["test", "-q", "--no-fail-fast", "--", *JSON_ARGS]),
        (
            "cargo --color never t foo -- --exact 'a b'",
            ["--color", "never", "t", "foo", "--no-fail-fast", "--", "--exact", "a b", *JSON_ARGS],
        ),
        (
            "cargo test --no-fail-fast -- --format pretty",
            ["test", "--no-fail-fast", "--", "--format", "pretty"],
        ),
        ("cargo build --release", ["build", "--release"]),
        (
            "cargo +nightly build -- +x && cargo t",
            ["build", "--", "+x", "t", "--no-fail-fast", "--", *JSON_ARGS],
        ),
        ("cargo +1.80 -q test", ["-q", "test", "--no-fail-fast", "--", *JSON_ARGS]),
        ("cargo nextest run -- x", ["nextest", "run", "--", "x"]),
    ],
)
def test_the_bash_wrapper_rewrites_like_the_argv_rewrite(
    fake_cargo: Path, tmp_path: Path, line: str, expected: list[str]
) -> None:
    inv = CargoTestRunner().invoke(TestCommand(shell=line), str(tmp_path))
    proc = _run_fake(inv.argv, inv.env, fake_cargo)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == expected


def test_the_wrappers_keep_cargo_s_exit_status_and_log_its_output(fake_cargo: Path, tmp_path: Path) -> None:
    runner = CargoTestRunner()
    for command in (
        TestCommand(argv=("cargo", "test")),
        TestCommand(shell="cargo test"),
        TestCommand(shell="set -e; cargo test; echo not reached"),
    ):
        log = tmp_path / LOG_FILE
        log.unlink(missing_ok=True)
        inv = runner.invoke(command, str(tmp_path))
        proc = _run_fake(inv.argv, inv.env, fake_cargo, FAKE_EXIT="101")
        assert proc.returncode == 101, command
        assert proc.stdout.splitlines() == ["test", "--no-fail-fast", "--", *JSON_ARGS]
        assert log.read_text() == proc.stdout
    # Several cargo test runs append to one log; other commands' output stays out of it.
    inv = runner.invoke(
        TestCommand(shell="cargo test -p a; echo between; cargo build; cargo t -p b"), str(tmp_path)
    )
    (tmp_path / LOG_FILE).unlink()
    proc = _run_fake(inv.argv, inv.env, fake_cargo)
    logged = (tmp_path / LOG_FILE).read_text()
    assert logged.count("--no-fail-fast") == 2
    assert "between" in proc.stdout
    assert "between" not in logged
    assert "build" not in logged


def test_parse_prefers_the_log_in_the_report_dir_over_truncated_stdout(tmp_path: Path) -> None:
    stdout, stderr, code = _load("json_full")
    (tmp_path / LOG_FILE).write_text(stdout)
    cut = stdout[:300] + "\n...\n" + stdout[-300:]  # what a capped capture keeps
    results = CargoTestRunner().parse(RunOutput(cut, stderr, code, tmp_path))
    assert len(results.tests) == len(_parse("json_full").tests)
    assert results.complete is True
    empty_dir = tmp_path / "none"
    empty_dir.mkdir()
    assert len(CargoTestRunner().parse(RunOutput(stdout, stderr, code, empty_dir)).tests) == len(
        results.tests
    )


# -- edge cases on synthetic output -----------------------------------------------------------------


def _suite(*events: str, count: int = 1, end: str | None = "ok") -> str:
    lines = [json.dumps({"type": "suite", "event": "started", "test_count": count}), *events]
    if end is not None:
        lines.append(json.dumps({"type": "suite", "event": end, "passed": 0, "failed": 0}))
    return "\n".join(lines) + "\n"


def _ev(name: str, event: str, **extra: Any) -> str:
    return json.dumps({"type": "test", "event": event, "name": name, **extra})


def test_non_json_lines_are_ignored_and_counted() -> None:
    stdout = "hello from a test\n" + _suite(_ev("a", "started"), _ev("a", "ok")) + "{not json}\n"
    results = parse_cargo_test(stdout, "", 0)
    assert [(t.id, t.outcome) for t in results.tests] == [("a", Outcome.PASSED)]
    assert any("2 non-JSON lines" in n for n in results.notes)


def test_a_suite_that_announced_more_tests_than_it_reported_is_incomplete() -> None:
    results = parse_cargo_test(_suite(_ev("a", "started"), _ev("a", "ok"), count=3), "", 0)
    assert results.complete is False
    assert any("announced 3 tests but reported 1" in n for n in results.notes)


def test_timeout_warning_is_a_note_and_the_test_keeps_its_final_result() -> None:
    stdout = _suite(_ev("slow", "started"), _ev("slow", "timeout"), _ev("slow", "ok", exec_time=61.5))
    results = parse_cargo_test(stdout, "", 0)
    (slow,) = results.tests
    assert slow.outcome is Outcome.PASSED
    assert slow.duration_s == pytest.approx(61.5)
    assert any("over 60 seconds" in n for n in results.notes)


def test_timeout_warning_then_killed_says_so_in_the_message() -> None:
    stdout = _suite(_ev("slow", "started"), _ev("slow", "timeout"), end=None)
    (slow,) = parse_cargo_test(stdout, "", None).tests
    assert slow.outcome is Outcome.ERROR
    assert "killed" in (slow.message or "")
    assert "over 60 seconds" in (slow.message or "")


def test_bench_events_count_as_passes_and_unknown_events_are_noted() -> None:
    stdout = _suite(
        json.dumps({"type": "bench", "name": "b", "median": 10, "deviation": 1}),
        _ev("x", "started"),
        _ev("x", "exploded"),
        count=2,
    )
    results = parse_cargo_test(stdout, "", 0)
    tests = _by_id(results)
    assert tests["b"].outcome is Outcome.PASSED
    assert tests["x"].outcome is Outcome.ERROR  # started, never finished
    assert any("unknown libtest event 'exploded'" in n for n in results.notes)


def test_long_messages_keep_the_tail_and_backtraces_are_dropped() -> None:
    body = "noise\n" * 1000 + (
        "thread 'a' panicked at src/lib.rs:1:1:\nthe real reason\nstack backtrace:\n"
        "   0: std::panicking::begin_panic\n             at /rustc/x/library/std/src/panicking.rs:1:1\n"
        "note: Some details are omitted, run with `RUST_BACKTRACE=full` for a verbose backtrace.\n"
    )
    stdout = _suite(_ev("a", "started"), _ev("a", "failed", stdout=body))
    (a,) = parse_cargo_test(stdout, "", 101).tests
    assert a.message is not None
    assert len(a.message) <= MAX_MESSAGE_CHARS
    assert a.message.startswith("…")
    assert a.message.endswith("the real reason")


def test_exit_code_that_contradicts_the_results_is_noted() -> None:
    failing = _suite(_ev("a", "started"), _ev("a", "failed"))
    results = parse_cargo_test(failing, "", 0)
    assert results.complete is False
    assert any("exited 0 but 1 test(s) failed" in n for n in results.notes)
    passing = _suite(_ev("a", "started"), _ev("a", "ok"))
    stderr = "Caused by:\n  process didn't exit successfully: `target/debug/deps/x-1` (exit status: 3)\n"
    results = parse_cargo_test(passing, stderr, 101)
    assert any("exited 101 although no test failed (exit status: 3)" in n for n in results.notes)


def test_verbose_running_lines_label_only_test_binaries() -> None:
    stderr = (
        "     Running `rustc --crate-name x src/lib.rs`\n"
        "     Running `/w/target/debug/build/x-1/build-script-build`\n"
        "     Running `/w/target/debug/deps/x-0123 -Z unstable-options --format json`\n"
        "Caused by:\n  process didn't exit successfully: `/w/target/debug/deps/x-0123 -Z` "
        "(signal: 11, SIGSEGV: invalid memory reference)\n"
    )
    stdout = _suite(_ev("a", "started"), end=None)
    results = parse_cargo_test(stdout, stderr, 101)
    (a,) = results.tests
    assert a.outcome is Outcome.ERROR
    assert "SIGSEGV" in (a.message or "")
    assert any(n.startswith("x-0123:") for n in results.notes)


def test_binaries_that_printed_nothing_are_noted() -> None:
    stderr = (
        "     Running unittests src/lib.rs (target/debug/deps/a-1)\n"
        "     Running tests/t.rs (target/debug/deps/t-2)\n"
    )
    results = parse_cargo_test(_suite(_ev("a", "started"), _ev("a", "ok")), stderr, 101)
    assert any("ran 2 test binaries but 1 printed results" in n for n in results.notes)


def test_libtest_rejecting_its_options_is_a_parse_error_not_a_build_error() -> None:
    stderr = (
        "    Finished `test` profile [unoptimized + debuginfo] target(s) in 0.01s\n"
        "     Running unittests src/lib.rs (target/debug/deps/x-1)\n"
        "error: the option `Z` is only accepted on the nightly compiler\n"
        "error: test failed, to rerun pass `--lib`\n"
    )
    with pytest.raises(ResultParseError, match="no libtest results"):
        parse_cargo_test("", stderr, 101)


def test_an_unknown_cargo_subcommand_is_a_command_line_problem_not_a_build_error() -> None:
    with pytest.raises(ResultParseError, match="rejected its command line"):
        parse_cargo_test(
            "", "error: no such command: `+nightly`\n\nhelp: invoke `cargo` through rustup\n", 101
        )


def test_no_output_at_all_is_a_parse_error() -> None:
    with pytest.raises(ResultParseError):
        parse_cargo_test("", "", 101)
    with pytest.raises(ResultParseError):
        parse_cargo_test("", "Segmentation fault\n", None)


@pytest.mark.parametrize(
    "stderr",
    [
        "error: failed to run custom build command for `x v0.1.0 (/w)`\n\nCaused by:\n  boom\n",
        "error: no matching package named `rand` found\nlocation searched: crates.io index\n"
        "note: offline mode (via `--offline`) can sometimes cause surprising resolution failures\n",
        "error: failed to parse manifest at `/w/Cargo.toml`\n\nCaused by:\n  invalid table header\n",
        "   Compiling x v0.1.0\nerror: linking with `cc` failed: exit status: 1\n",
    ],
)
def test_other_build_failures_are_build_errors(stderr: str) -> None:
    results = parse_cargo_test("", stderr, 101)
    assert results.build_error is not None
    assert results.build_error.startswith("error")


def test_build_error_message_is_none_without_an_error_line() -> None:
    assert build_error_message("   Compiling x\nwarning: unused variable\n") is None


def test_text_pending_name_followed_by_a_bare_result() -> None:
    stdout = (
        "running 2 tests\ntest a ... \nsome output\nok\ntest b ... FAILED\n\n"
        "test result: FAILED. 1 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s\n"
    )
    results = parse_cargo_test(stdout, "", 101)
    assert [(t.id, t.outcome) for t in results.tests] == [("a", Outcome.PASSED), ("b", Outcome.FAILED)]
    assert results.complete is True


def test_text_suite_without_summary_is_incomplete() -> None:
    results = parse_cargo_test("running 2 tests\ntest a ... ok\n", "", None)
    assert results.complete is False
    assert [(t.id, t.outcome) for t in results.tests] == [("a", Outcome.PASSED)]


def test_a_name_with_an_invalid_json_escape_is_recovered_not_dropped() -> None:
    """Regression: older libtest releases wrote names unescaped; a Windows doc test ``src\\lib.rs - f
    (line 3)`` is an invalid JSON escape, and the line was dropped with its test. Its backslashes are
    now read literally (as cargo2junit does)."""
    stdout, stderr, _ = _load("json_passing")
    events = [json.loads(ln) for ln in stdout.splitlines() if ln.startswith("{")]
    started = next(i for i, e in enumerate(events) if e.get("type") == "suite" and e["event"] == "started")
    lines = [json.dumps(e) for e in events]
    name = "src\\lib.rs - func (line 47)"  # the JSON text holds one raw backslash
    lines.insert(started + 1, '{ "type": "test", "event": "started", "name": "' + name + '" }')
    lines.insert(started + 2, '{ "type": "test", "name": "' + name + '", "event": "ignored" }')
    results = parse_cargo_test("\n".join(lines) + "\n", stderr, 0)
    assert _by_id(results)["src\\lib.rs - func (line 47)"].outcome is Outcome.SKIPPED
    assert not any("non-JSON" in n for n in results.notes)


def test_fewer_suites_than_test_binaries_is_incomplete() -> None:
    """Per-suite signal: cargo names every test binary it runs on stderr; a binary whose suite is
    missing from the events (a cut between suites) leaves the run incomplete."""
    stdout, stderr, code = _load("json_full")
    lines = stdout.splitlines(keepends=True)
    # Drop the last suite, from its start to its end.
    starts = [i for i, ln in enumerate(lines) if '"type": "suite", "event": "started"' in ln]
    assert len(starts) >= 2
    cut = "".join(lines[: starts[-1]])
    whole = parse_cargo_test(stdout, stderr, code)
    results = parse_cargo_test(cut, stderr, code)
    assert not any("test binaries but" in n for n in whole.notes)
    assert results.complete is False
    assert any("test binaries but" in n for n in results.notes)


def test_truncated_standard_output_without_a_log_is_incomplete(tmp_path: Path) -> None:
    stdout, stderr, code = _load("json_passing")
    results = CargoTestRunner().parse(RunOutput(stdout, stderr, code, tmp_path, stdout_truncated=True))
    assert results.complete is False
    assert any("truncated" in n for n in results.notes)


def test_an_unescaped_path_that_happens_to_be_valid_json_is_read_literally() -> None:
    """``src\\bindings\\blob.rs`` unescaped is valid JSON that reads as backspaces (cargo2junit's
    azfunc input); no test name holds control characters, so the backslashes are read literally."""
    stdout, stderr, _ = _load("json_passing")
    events = [json.loads(ln) for ln in stdout.splitlines() if ln.startswith("{")]
    started = next(i for i, e in enumerate(events) if e.get("type") == "suite" and e["event"] == "started")
    lines = [json.dumps(e) for e in events]
    name = "src\\bindings\\blob.rs - bindings::blob (line 9)"
    lines.insert(started + 1, '{ "type": "test", "event": "started", "name": "' + name + '" }')
    lines.insert(started + 2, '{ "type": "test", "name": "' + name + '", "event": "ok" }')
    results = parse_cargo_test("\n".join(lines) + "\n", stderr, 0)
    assert _by_id(results)[name].outcome is Outcome.PASSED


@pytest.mark.skipif(shutil.which("cargo") is None, reason="cargo is not installed")
def test_libtest_prints_json_while_code_under_test_gets_no_nightly_feature(tmp_path: Path) -> None:
    """Round nineteen (rt18-rust-link-arg-attribute-wraps-write): with ``RUSTC_BOOTSTRAP=1`` code under test
    compiled ``#![feature(link_arg_attribute)]`` on a stable toolchain and linked a ``write`` wrapper into
    the test binaries that rewrote libtest's events. The runner's value turns libtest's ``-Z`` options on
    (read at run time) and no crate's nightly features (rustc: ``1`` or the crate's name only)."""
    (tmp_path / "src").mkdir()
    (tmp_path / "Cargo.toml").write_text('[package]\nname = "lib"\nversion = "0.1.0"\nedition = "2021"\n')
    lib = (
        "pub fn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n\n"
        "#[test]\nfn adds() {\n    assert_eq!(add(1, 2), 3);\n}\n"
    )
    (tmp_path / "src" / "lib.rs").write_text(lib)
    env = {**os.environ, **CARGO_ENV, "CARGO_TARGET_DIR": str(tmp_path / "target")}
    run = functools.partial(
        subprocess.run,
        ["cargo", "test", "--offline", "--", *LIBTEST_ARGS],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    done = run()
    results = parse_cargo_test(done.stdout, done.stderr, done.returncode)
    assert [(t.id.rsplit("::", 1)[-1], t.outcome.ok) for t in results.tests] == [("adds", True)]
    (tmp_path / "src" / "lib.rs").write_text("#![feature(link_arg_attribute)]\n" + lib)
    done = run()
    assert done.returncode != 0 and "E0554" in done.stderr  # `#![feature]` may not be used on stable
