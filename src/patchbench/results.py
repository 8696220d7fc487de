"""Per-test results, as every runner reports them."""

from __future__ import annotations

from enum import Enum

from pydantic import BaseModel, ConfigDict


class Outcome(str, Enum):
    """The outcome of one test. A raw status string never leaves a parser."""

    PASSED = "passed"
    FAILED = "failed"
    ERROR = "error"
    SKIPPED = "skipped"
    XFAIL = "xfail"
    XPASS = "xpass"

    @property
    def ok(self) -> bool:
        """True only for a test that ran and passed. Skipped, xfail and xpass are not passes."""
        return self is Outcome.PASSED


#: When one id appears several times (TAP names, parametrised duplicates), the worst outcome wins.
SEVERITY = {
    Outcome.PASSED: 0,
    Outcome.SKIPPED: 1,
    Outcome.XFAIL: 2,
    Outcome.XPASS: 3,
    Outcome.FAILED: 4,
    Outcome.ERROR: 5,
}


class TestResult(BaseModel):
    """One test's result.

    Attributes:
        id: the test id in the runner's normal form (pytest node id, TAP description...).
        outcome: what happened.
        duration_s: how long it took, when the runner says.
        message: the failure or skip message, trimmed.
    """

    __test__ = False  # not a pytest test class, despite the name

    model_config = ConfigDict(frozen=True)

    id: str
    outcome: Outcome
    duration_s: float | None = None
    message: str | None = None


class TestResults(BaseModel):
    """What a runner parsed from one test command.

    Attributes:
        runner: the runner's registered name.
        tests: every test result, in report order.
        complete: False when the report shows the run stopped early (TAP ``Bail out!``, a plan
            with fewer results than announced, pytest interrupted).
        notes: anything the parser noticed (plan mismatch, unparseable lines...), one line each.
        build_error: the compiler's message when the code under test did not build (a compile error is
            the candidate's failure: the verdict is ``unresolved`` with this message, never ``infra_error``).
    """

    __test__ = False  # not a pytest test class, despite the name

    model_config = ConfigDict(frozen=True)

    runner: str
    tests: tuple[TestResult, ...] = ()
    complete: bool = True
    notes: tuple[str, ...] = ()
    build_error: str | None = None
