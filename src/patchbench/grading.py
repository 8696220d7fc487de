"""Grading: a pure, default-fail function from per-test results to a status.

Truth table (first matching row wins):

=====================================================  ===============  ======
situation                                              status           reward
=====================================================  ===============  ======
the task is malformed                                  ``bad_task``     0
the candidate's patch is malformed/unsafe/not applied  ``patch_failed`` 0
the candidate changed test configuration (``reject``)  ``unresolved``   0
the report directory holds anything but plain files
  of the run's uid within the caps: tampered report    ``unresolved``   0
sandbox set-up or environment broke; the test tool
  could not run (exit 126/127, or its own usage/
  internal-error codes) before reporting any test and
  the unmodified task (and gold) fail the same way     ``infra_error``  0
the test tool ended that way with the candidate's
  code loaded while the unmodified task runs           ``unresolved``   0
the wall-clock limit ran out                           ``timeout``      0
the code under test did not compile/build              ``unresolved``   0
the canary test (always fails) was reported passing:
  tampered results                                     ``unresolved``   0
zero tests were reported (also: the report is missing
  because the test process ended before writing it)    ``no_tests``     0
an F2P or P2P id matches no reported test              ``unresolved``   0
an F2P/P2P test did not pass (failed, error, skipped,
  xfail, xpass all count as not passed)                ``unresolved``   0
no F2P/P2P lists and a reported test failed, errored
  or xpassed (skips and xfails are ignored; all
  skipped is ``no_tests``)                             ``unresolved``   0
the report is incomplete (bail out, plan mismatch,
  interrupted run)                                     ``unresolved``   0
the canary is missing from the report although this
  task's command runs it (calibrated): forged report    ``unresolved``   0
a command was killed, or exited non-zero while no
  parsed test failed or errored (nothing explains it)  ``unresolved``   0
every F2P and P2P test passed, exit codes consistent   ``resolved``     1
=====================================================  ===============  ======

``infra_error`` is never a pass and never the candidate's failure: callers retry or exclude it.
A non-zero exit is consistent when some parsed test failed or errored: real suites hold failing tests
outside the F2P/P2P lists (that is why they are not listed), and the runner exits non-zero for them.
The canary (see :mod:`patchbench.canary`) is graded apart: its result is not in ``results``; its expected
failure explains a non-zero exit.
``pass_ratio`` is the share of F2P+P2P tests that passed (without lists: of all tests neither skipped nor
xfailed), reported for every status that ran tests.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .results import Outcome, TestResult, TestResults
from .verdict import CanaryState, Status, TestCheck

#: Outcomes that neither pass nor fail a task graded without F2P/P2P lists.
_IGNORED_WITHOUT_LISTS = (Outcome.SKIPPED, Outcome.XFAIL)


@dataclass(frozen=True)
class Graded:
    """The grader's answer.

    Attributes:
        status: the verdict status.
        reward: 1.0 when resolved, else 0.0.
        pass_ratio: share of checked tests that passed, None when no test ran.
        fail_to_pass: one check per F2P id.
        pass_to_pass: one check per P2P id.
        reason: one line saying why, for anything but a clean resolve.
    """

    status: Status
    reward: float
    pass_ratio: float | None
    fail_to_pass: tuple[TestCheck, ...]
    pass_to_pass: tuple[TestCheck, ...]
    reason: str


def grade(
    results: TestResults,
    matched_f2p: dict[str, TestResult | None],
    matched_p2p: dict[str, TestResult | None],
    *,
    exit_codes: Sequence[int | None],
    timed_out: bool = False,
    canary: CanaryState | None = None,
    canary_required: bool = False,
) -> Graded:
    """Grade one run. Pure: same inputs, same answer.

    Args:
        results: every parsed test result (all commands together).
        matched_f2p: each F2P id and the result it matched (None: matched nothing).
        matched_p2p: likewise for P2P.
        exit_codes: every test command's exit code (None when killed).
        timed_out: the wall-clock limit ran out.
        canary: what the report said of the run's canary (None: no canary was planted).
        canary_required: a missing canary fails the run (the task's command is known to run it).
    """
    f2p = tuple(_check(i, r) for i, r in matched_f2p.items())
    p2p = tuple(_check(i, r) for i, r in matched_p2p.items())
    checks = f2p + p2p
    tests = results.tests

    if checks:
        ratio: float | None = (sum(c.passed for c in checks) / len(checks)) if tests else None
    else:
        counted = [t for t in tests if t.outcome not in _IGNORED_WITHOUT_LISTS]
        ratio = (sum(t.outcome.ok for t in counted) / len(counted)) if counted else None

    def out(status: Status, reason: str) -> Graded:
        reward = 1.0 if status is Status.RESOLVED else 0.0
        return Graded(status, reward, ratio, f2p, p2p, reason)

    if timed_out:
        return out(Status.TIMEOUT, "the test run hit its time limit")
    if results.build_error is not None:
        return out(
            Status.UNRESOLVED, "the code did not build: " + " ".join(results.build_error.split())[:600]
        )
    if canary is CanaryState.PASSED:
        return out(
            Status.UNRESOLVED,
            "result tampering: the canary test, which always fails, was reported passing "
            "(the test framework, its assertions or its report were altered)",
        )
    if not tests:
        return out(Status.NO_TESTS, "no test results were reported (zero tests is never a pass)")
    missing = [c.id for c in checks if c.outcome is None]
    if missing:
        return out(
            Status.UNRESOLVED,
            f"{len(missing)} listed test(s) matched no reported test: "
            + ", ".join(missing[:5])
            + (" ..." if len(missing) > 5 else ""),
        )
    bad = [c for c in checks if not c.passed]
    if bad:
        names = ", ".join(f"{c.id} ({c.outcome.value if c.outcome else 'missing'})" for c in bad[:5])
        return out(
            Status.UNRESOLVED,
            f"{len(bad)} listed test(s) did not pass: {names}" + (" ..." if len(bad) > 5 else ""),
        )
    if not checks:
        failing = [t for t in tests if not t.outcome.ok and t.outcome not in _IGNORED_WITHOUT_LISTS]
        if failing:
            return out(
                Status.UNRESOLVED,
                f"{len(failing)} test(s) did not pass: " + ", ".join(t.id for t in failing[:5]),
            )
        if not any(t.outcome.ok for t in tests):
            return out(Status.NO_TESTS, "no reported test passed (all skipped or xfailed)")
    if not results.complete:
        note = "; ".join(results.notes[:3]) or "the report is incomplete"
        return out(Status.UNRESOLVED, f"incomplete test report: {note}")
    if canary is CanaryState.MISSING and canary_required:
        return out(
            Status.UNRESOLVED,
            "the canary test is missing from the report although this task's test command runs it: "
            "the report was forged or the run was cut short",
        )
    killed = [i for i, c in enumerate(exit_codes) if c is None]
    if killed:
        return out(Status.UNRESOLVED, f"test command {killed[0]} was killed (exited with None)")
    explained = canary is CanaryState.FAILED or any(
        t.outcome in (Outcome.FAILED, Outcome.ERROR) for t in tests
    )
    nonzero = [c for c in exit_codes if c != 0]
    if nonzero and not explained:
        return out(
            Status.UNRESOLVED, f"a test command exited with {nonzero[0]} although no reported test failed"
        )
    return out(Status.RESOLVED, "")


def _check(test_id: str, r: TestResult | None) -> TestCheck:
    return TestCheck(
        id=test_id,
        outcome=r.outcome if r else None,
        passed=bool(r and r.outcome.ok),
        message=r.message if r else "no test with this id was reported",
    )
