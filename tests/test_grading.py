"""Grading: one test per row of the truth table in ``patchbench.grading``, then the finer points.

``grade()`` decides the rows from ``timeout`` down. The first four rows (``bad_task``, ``patch_failed``,
configuration ``reject``, ``infra_error``) are decided before any test runs, by the loader and the
harness, so they are checked through :func:`patchbench.api.bad_task_verdicts` and
:func:`patchbench.harness.run` (which stop before the environment or the sandbox is used).

Several results sharing one id (the worst outcome wins) is not grading's job: ``match_ids`` resolves it
before ``grade()`` sees the matched dicts, and is tested with the runners.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from patchbench.api import bad_task_verdicts
from patchbench.candidate import Candidate
from patchbench.errors import DatasetError, InputError, SandboxError
from patchbench.formats import Loaded
from patchbench.grading import Graded, grade
from patchbench.harness import run
from patchbench.results import Outcome, TestResult, TestResults
from patchbench.sandbox import BwrapSandbox, ProcessSandbox
from patchbench.task import FileEntry, Task, TestCommand, TestSpec
from patchbench.verdict import Status, TestCheck
from patchbench.workspace import ConfigPolicy

# --- helpers -------------------------------------------------------------------------------------


def res(test_id: str, outcome: Outcome = Outcome.PASSED, message: str | None = None) -> TestResult:
    return TestResult(id=test_id, outcome=outcome, message=message)


def results(*tests: TestResult, complete: bool = True, notes: tuple[str, ...] = ()) -> TestResults:
    return TestResults(runner="pytest", tests=tests, complete=complete, notes=notes)


def by_id(rs: TestResults, ids: list[str]) -> dict[str, TestResult | None]:
    """The matched dict ``match_ids`` would build, by hand: exact ids, None when absent."""
    index = {t.id: t for t in rs.tests}
    return {i: index.get(i) for i in ids}


def grade_lists(
    rs: TestResults,
    f2p: list[str],
    p2p: list[str],
    *,
    exit_codes: tuple[int | None, ...] = (0,),
    timed_out: bool = False,
) -> Graded:
    return grade(rs, by_id(rs, f2p), by_id(rs, p2p), exit_codes=exit_codes, timed_out=timed_out)


ALL_PASS = results(res("t::f2p_a"), res("t::f2p_b"), res("t::p2p_a"), res("t::p2p_b"))
F2P = ["t::f2p_a", "t::f2p_b"]
P2P = ["t::p2p_a", "t::p2p_b"]
NOT_PASSED = [Outcome.FAILED, Outcome.ERROR, Outcome.SKIPPED, Outcome.XFAIL, Outcome.XPASS]


def harness_task() -> Task:
    return Task(
        id="grading-row",
        workspace=(
            FileEntry(path="mod.py", content="def f():\n    return 1\n"),
            FileEntry(path="tests/conftest.py", content=""),
        ),
        hidden_tests=(FileEntry(path="tests/test_mod.py", content="def test_f():\n    pass\n"),),
        test=TestSpec(commands=(TestCommand(argv=("pytest", "-q")),)),
        fail_to_pass=("tests/test_mod.py::test_f",),
    )


@pytest.fixture
def runs_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    d = tmp_path / "runs"
    d.mkdir()
    monkeypatch.setenv("PATCHBENCH_RUNS", str(d))
    return d


# --- the truth table, row by row -----------------------------------------------------------------


def test_row_malformed_task_is_bad_task() -> None:
    loaded = Loaded(
        errors=[DatasetError("missing field 'test'", source="d.jsonl", row="row-7")], source="d.jsonl"
    )
    [v] = bad_task_verdicts(loaded, Candidate.gold())
    assert v.status is Status.BAD_TASK
    assert v.reward == 0.0
    assert v.task_id == "row-7"
    assert "missing field 'test'" in v.reason
    assert not v.status.candidate_fault


def test_row_patch_that_does_not_apply_is_patch_failed(runs_dir: Path) -> None:
    patch = "--- a/mod.py\n+++ b/mod.py\n@@ -1,2 +1,2 @@\n-nothing\n-like this\n+x\n+y\n"
    v = run(harness_task(), Candidate.diff(patch), sandbox=ProcessSandbox())
    assert v.status is Status.PATCH_FAILED
    assert v.reward == 0.0
    assert "does not apply" in v.reason
    assert list(runs_dir.iterdir()) == []  # run directory cleaned up


def test_row_unsafe_patch_is_patch_failed(runs_dir: Path) -> None:
    patch = "--- a/../x\n+++ b/../x\n@@ -0,0 +1 @@\n+x\n"
    v = run(harness_task(), Candidate.diff(patch), sandbox=ProcessSandbox())
    assert v.status is Status.PATCH_FAILED
    assert v.reward == 0.0


def test_row_changed_test_configuration_under_reject_is_unresolved(runs_dir: Path) -> None:
    cand = Candidate.files({"tests/conftest.py": "import pytest\n", "mod.py": "def f():\n    return 2\n"})
    v = run(harness_task(), cand, sandbox=ProcessSandbox(), config_policy=ConfigPolicy.REJECT)
    assert v.status is Status.UNRESOLVED
    assert v.reward == 0.0
    assert "tests/conftest.py" in v.reason
    assert v.config_files_blocked == ("tests/conftest.py",)


class _UnavailableSandbox(BwrapSandbox):
    def check(self) -> None:
        raise SandboxError("bubblewrap is not installed (simulated)")


def test_row_broken_sandbox_is_infra_error(runs_dir: Path) -> None:
    v = run(harness_task(), Candidate.gold(), sandbox=_UnavailableSandbox())
    assert v.status is Status.INFRA_ERROR
    assert v.reward == 0.0
    assert "simulated" in v.reason
    assert not v.status.candidate_fault


def test_an_unknown_sandbox_name_is_bad_input_not_a_verdict(runs_dir: Path) -> None:
    with pytest.raises(InputError, match="no-such-backend"):
        run(harness_task(), Candidate.gold(), sandbox="no-such-backend")


def test_row_wall_clock_limit_is_timeout() -> None:
    g = grade_lists(ALL_PASS, F2P, P2P, exit_codes=(None,), timed_out=True)
    assert g.status is Status.TIMEOUT
    assert g.reward == 0.0
    assert "time limit" in g.reason


def test_row_zero_tests_is_no_tests() -> None:
    g = grade_lists(results(), F2P, P2P)
    assert g.status is Status.NO_TESTS
    assert g.reward == 0.0
    assert g.pass_ratio is None


def test_row_listed_id_matching_nothing_is_unresolved_naming_the_id() -> None:
    rs = results(res("t::f2p_a"), res("t::p2p_a"))
    g = grade_lists(rs, ["t::f2p_a", "t::f2p_gone"], ["t::p2p_a"])
    assert g.status is Status.UNRESOLVED
    assert g.reward == 0.0
    assert "t::f2p_gone" in g.reason
    assert "matched no reported test" in g.reason
    check = {c.id: c for c in g.fail_to_pass}["t::f2p_gone"]
    assert check == TestCheck(
        id="t::f2p_gone", outcome=None, passed=False, message="no test with this id was reported"
    )


@pytest.mark.parametrize("outcome", NOT_PASSED, ids=lambda o: o.value)
@pytest.mark.parametrize("which", ["f2p", "p2p"])
def test_row_listed_test_that_did_not_pass_is_unresolved(outcome: Outcome, which: str) -> None:
    tests = {t.id: t for t in ALL_PASS.tests}
    victim = "t::f2p_b" if which == "f2p" else "t::p2p_a"
    tests[victim] = res(victim, outcome, message="boom")
    g = grade_lists(results(*tests.values()), F2P, P2P)
    assert g.status is Status.UNRESOLVED
    assert g.reward == 0.0
    assert f"{victim} ({outcome.value})" in g.reason
    check = {c.id: c for c in g.fail_to_pass + g.pass_to_pass}[victim]
    assert check.passed is False
    assert check.outcome is outcome
    assert check.message == "boom"


@pytest.mark.parametrize("outcome", [Outcome.FAILED, Outcome.ERROR, Outcome.XPASS])
def test_row_no_lists_and_a_test_that_did_not_pass_is_unresolved(outcome: Outcome) -> None:
    g = grade_lists(results(res("a"), res("b", outcome)), [], [], exit_codes=(1,))
    assert g.status is Status.UNRESOLVED
    assert g.reward == 0.0
    assert "b" in g.reason


def test_row_incomplete_report_is_unresolved() -> None:
    rs = results(*ALL_PASS.tests, complete=False, notes=("Bail out! database unavailable",))
    g = grade_lists(rs, F2P, P2P)
    assert g.status is Status.UNRESOLVED
    assert g.reward == 0.0
    assert "incomplete" in g.reason
    assert "Bail out! database unavailable" in g.reason


def test_row_non_zero_exit_while_nothing_failed_is_unresolved() -> None:
    g = grade_lists(ALL_PASS, F2P, P2P, exit_codes=(0, 2))
    assert g.status is Status.UNRESOLVED
    assert g.reward == 0.0
    assert "exited with 2" in g.reason


def test_row_everything_passed_is_resolved() -> None:
    g = grade_lists(ALL_PASS, F2P, P2P)
    assert g.status is Status.RESOLVED
    assert g.reward == 1.0
    assert g.pass_ratio == 1.0
    assert g.reason == ""
    assert [c.id for c in g.fail_to_pass] == F2P
    assert [c.id for c in g.pass_to_pass] == P2P
    assert all(c.passed and c.outcome is Outcome.PASSED for c in g.fail_to_pass + g.pass_to_pass)


def test_row_resolved_with_an_unlisted_failure_and_its_consistent_exit_code() -> None:
    """Would break: a task whose suite has a failing test outside the F2P/P2P lists (common in real
    repositories, and the reason such a test is not listed) can never be resolved, not even by gold:
    pytest exits 1 when any test fails, and grade() treats every non-zero exit as unexplained."""
    rs = results(*ALL_PASS.tests, res("t::unlisted_flaky", Outcome.FAILED))
    g = grade_lists(rs, F2P, P2P, exit_codes=(1,))
    assert g.status is Status.RESOLVED
    assert g.reward == 1.0


# --- finer points --------------------------------------------------------------------------------


def test_a_killed_command_is_never_a_consistent_exit_code() -> None:
    rs = results(*ALL_PASS.tests, res("t::unlisted", Outcome.FAILED))
    g = grade_lists(rs, F2P, P2P, exit_codes=(None,))
    assert g.status is Status.UNRESOLVED
    assert "exited with None" in g.reason


def test_skipped_or_xfail_unlisted_tests_do_not_explain_a_non_zero_exit() -> None:
    rs = results(*ALL_PASS.tests, res("t::s", Outcome.SKIPPED), res("t::x", Outcome.XFAIL))
    g = grade_lists(rs, F2P, P2P, exit_codes=(1,))
    assert g.status is Status.UNRESOLVED


@pytest.mark.parametrize("outcome", [Outcome.SKIPPED, Outcome.XFAIL, Outcome.XPASS])
def test_skipped_xfail_and_xpass_f2p_count_as_not_passed(outcome: Outcome) -> None:
    rs = results(res("t::f2p_a", outcome), res("t::f2p_b"), res("t::p2p_a"), res("t::p2p_b"))
    g = grade_lists(rs, F2P, P2P)
    assert g.status is Status.UNRESOLVED
    assert g.fail_to_pass[0].passed is False
    assert g.pass_ratio == 0.75


def test_zero_tests_is_no_tests_even_when_the_exit_code_is_zero() -> None:
    g = grade_lists(results(), [], [], exit_codes=(0,))
    assert g.status is Status.NO_TESTS
    assert g.reward == 0.0
    assert "zero tests is never a pass" in g.reason


def test_zero_tests_wins_over_missing_ids() -> None:
    g = grade_lists(results(complete=False), F2P, P2P, exit_codes=(1,))
    assert g.status is Status.NO_TESTS


def test_non_zero_exit_with_every_listed_test_passing_is_unresolved() -> None:
    g = grade_lists(ALL_PASS, F2P, P2P, exit_codes=(5,))
    assert g.status is Status.UNRESOLVED
    assert "5" in g.reason
    assert g.pass_ratio == 1.0


def test_any_of_several_exit_codes_counts() -> None:
    assert grade_lists(ALL_PASS, F2P, P2P, exit_codes=(0, 0, 0)).status is Status.RESOLVED
    assert grade_lists(ALL_PASS, F2P, P2P, exit_codes=(0, 3, 0)).status is Status.UNRESOLVED


def test_no_exit_codes_at_all_does_not_block_resolution() -> None:
    assert grade_lists(ALL_PASS, F2P, P2P, exit_codes=()).status is Status.RESOLVED


def test_incomplete_report_without_notes_still_gives_a_reason() -> None:
    g = grade_lists(results(*ALL_PASS.tests, complete=False), F2P, P2P)
    assert g.status is Status.UNRESOLVED
    assert g.reason == "incomplete test report: the report is incomplete"


@pytest.mark.parametrize(
    "kw",
    [
        {"rs": results(), "f2p": F2P},
        {"rs": results(res("t::f2p_a", Outcome.FAILED)), "f2p": F2P},
        {"rs": results(*ALL_PASS.tests, complete=False), "f2p": F2P},
        {"rs": ALL_PASS, "f2p": F2P, "exit_codes": (1,)},
        {"rs": ALL_PASS, "f2p": F2P},
        {"rs": results(res("a", Outcome.SKIPPED)), "f2p": []},
    ],
    ids=["no-tests", "missing-and-failing", "incomplete", "non-zero-exit", "all-pass", "only-skipped"],
)
def test_timeout_wins_over_everything(kw: dict[str, object]) -> None:
    rs = kw["rs"]
    assert isinstance(rs, TestResults)
    f2p = kw["f2p"]
    assert isinstance(f2p, list)
    exit_codes = kw.get("exit_codes", (None,))
    assert isinstance(exit_codes, tuple)
    g = grade_lists(rs, f2p, [], exit_codes=exit_codes, timed_out=True)
    assert g.status is Status.TIMEOUT
    assert g.reward == 0.0


def test_timeout_still_reports_the_pass_ratio_of_tests_that_ran() -> None:
    rs = results(res("t::f2p_a"), res("t::f2p_b", Outcome.FAILED), res("t::p2p_a"), res("t::p2p_b"))
    g = grade_lists(rs, F2P, P2P, exit_codes=(None,), timed_out=True)
    assert g.status is Status.TIMEOUT
    assert g.pass_ratio == 0.75


def test_missing_ids_are_listed_up_to_five_then_elided() -> None:
    ids = [f"t::gone_{i}" for i in range(7)]
    g = grade_lists(results(res("t::other")), ids, [])
    assert g.status is Status.UNRESOLVED
    assert g.reason.startswith("7 listed test(s) matched no reported test: ")
    assert all(i in g.reason for i in ids[:5])
    assert "t::gone_5" not in g.reason
    assert g.reason.endswith(" ...")


def test_missing_ids_are_reported_before_failing_ones() -> None:
    rs = results(res("t::f2p_a", Outcome.FAILED), res("t::p2p_a"))
    g = grade_lists(rs, ["t::f2p_a"], ["t::p2p_a", "t::p2p_gone"])
    assert g.status is Status.UNRESOLVED
    assert "t::p2p_gone" in g.reason


def test_unlisted_tests_do_not_affect_a_task_with_lists() -> None:
    rs = results(*ALL_PASS.tests, res("t::extra", Outcome.SKIPPED), res("t::extra2", Outcome.XFAIL))
    g = grade_lists(rs, F2P, P2P)
    assert g.status is Status.RESOLVED
    assert g.pass_ratio == 1.0


# --- tasks without F2P/P2P lists -----------------------------------------------------------------


def test_no_lists_all_passing_is_resolved() -> None:
    g = grade_lists(results(res("a"), res("b"), res("c")), [], [])
    assert g.status is Status.RESOLVED
    assert g.reward == 1.0
    assert g.pass_ratio == 1.0
    assert g.fail_to_pass == ()
    assert g.pass_to_pass == ()


def test_no_lists_passing_and_skipped_is_resolved_and_skips_do_not_count() -> None:
    g = grade_lists(results(res("a"), res("b", Outcome.SKIPPED)), [], [])
    assert g.status is Status.RESOLVED
    assert g.pass_ratio == 1.0


def test_no_lists_any_failure_is_unresolved() -> None:
    g = grade_lists(results(res("a"), res("b", Outcome.FAILED, "assert 1 == 2")), [], [], exit_codes=(1,))
    assert g.status is Status.UNRESOLVED
    assert g.reason == "1 test(s) did not pass: b"


def test_no_lists_only_skipped_is_no_tests() -> None:
    g = grade_lists(results(res("a", Outcome.SKIPPED), res("b", Outcome.SKIPPED)), [], [])
    assert g.status is Status.NO_TESTS
    assert g.reward == 0.0
    assert g.pass_ratio is None
    assert "skipped" in g.reason


def test_no_lists_incomplete_report_is_unresolved() -> None:
    g = grade_lists(results(res("a"), complete=False), [], [])
    assert g.status is Status.UNRESOLVED


def test_no_lists_non_zero_exit_is_unresolved() -> None:
    g = grade_lists(results(res("a")), [], [], exit_codes=(1,))
    assert g.status is Status.UNRESOLVED


# --- pass_ratio and reward -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("outcomes", "expected"),
    [
        ([Outcome.PASSED] * 4, 1.0),
        ([Outcome.PASSED, Outcome.FAILED, Outcome.PASSED, Outcome.PASSED], 0.75),
        ([Outcome.FAILED, Outcome.ERROR, Outcome.PASSED, Outcome.SKIPPED], 0.25),
        ([Outcome.FAILED] * 4, 0.0),
    ],
)
def test_pass_ratio_is_the_share_of_listed_tests_that_passed(
    outcomes: list[Outcome], expected: float
) -> None:
    ids = F2P + P2P
    rs = results(*(res(i, o) for i, o in zip(ids, outcomes, strict=True)))
    assert grade_lists(rs, F2P, P2P).pass_ratio == pytest.approx(expected)


def test_pass_ratio_counts_missing_ids_as_not_passed() -> None:
    rs = results(res("t::f2p_a"))
    assert grade_lists(rs, ["t::f2p_a", "t::gone"], []).pass_ratio == 0.5


def test_pass_ratio_without_lists_is_over_tests_neither_skipped_nor_xfailed() -> None:
    rs = results(res("a"), res("b", Outcome.FAILED), res("c", Outcome.SKIPPED), res("d", Outcome.XFAIL))
    assert grade_lists(rs, [], []).pass_ratio == pytest.approx(1 / 2)


def test_pass_ratio_is_none_when_no_test_ran() -> None:
    assert grade_lists(results(), F2P, P2P).pass_ratio is None
    assert grade_lists(results(), [], []).pass_ratio is None


@pytest.mark.parametrize(
    ("rs", "f2p", "exit_codes", "timed_out", "status"),
    [
        (ALL_PASS, F2P, (0,), False, Status.RESOLVED),
        (ALL_PASS, F2P, (0,), True, Status.TIMEOUT),
        (results(), F2P, (0,), False, Status.NO_TESTS),
        (ALL_PASS, ["t::gone"], (0,), False, Status.UNRESOLVED),
        (results(res("t::f2p_a", Outcome.FAILED), res("t::f2p_b")), F2P, (1,), False, Status.UNRESOLVED),
        (ALL_PASS, F2P, (1,), False, Status.UNRESOLVED),
    ],
)
def test_reward_is_one_only_for_resolved(
    rs: TestResults, f2p: list[str], exit_codes: tuple[int, ...], timed_out: bool, status: Status
) -> None:
    g = grade_lists(rs, f2p, [], exit_codes=exit_codes, timed_out=timed_out)
    assert g.status is status
    assert g.reward == (1.0 if status is Status.RESOLVED else 0.0)


def test_grade_is_pure() -> None:
    rs = results(res("t::f2p_a"), res("t::f2p_b", Outcome.FAILED), res("t::p2p_a"))
    f2p, p2p = by_id(rs, F2P), by_id(rs, ["t::p2p_a"])
    first = grade(rs, f2p, p2p, exit_codes=[1])
    assert grade(rs, f2p, p2p, exit_codes=[1]) == first
    assert f2p == by_id(rs, F2P)  # inputs untouched


def test_checks_keep_the_order_of_the_lists() -> None:
    ids = ["t::z", "t::a", "t::m"]
    rs = results(*(res(i) for i in reversed(ids)))
    g = grade_lists(rs, ids, [])
    assert [c.id for c in g.fail_to_pass] == ids


def test_no_lists_an_xfailed_test_is_expected_and_does_not_fail_the_task() -> None:
    """pytest exits 0 with an xfail in the suite; without lists, an expected failure is not a failure."""
    g = grade_lists(results(res("a"), res("b", Outcome.XFAIL)), [], [], exit_codes=(0,))
    assert g.status is Status.RESOLVED


def test_a_build_error_is_unresolved_with_the_compilers_message() -> None:
    """A candidate that does not compile is the candidate's failure, never infra_error nor no_tests."""
    rs = TestResults(runner="x", tests=(), build_error="main.go:3:1: syntax error: unexpected }")
    g = grade_lists(rs, F2P, P2P, exit_codes=(1,))
    assert g.status is Status.UNRESOLVED
    assert "syntax error: unexpected }" in g.reason
