"""The Verdict: what one run of one candidate on one task came to."""

from __future__ import annotations

from enum import Enum

from pydantic import BaseModel, ConfigDict, Field

from .results import Outcome, TestResult


class Status(str, Enum):
    """A verdict's status. Only ``resolved`` earns reward."""

    RESOLVED = "resolved"
    """Every F2P and P2P test passed."""
    UNRESOLVED = "unresolved"
    """Tests ran and the candidate did not fix the bug (or broke something)."""
    PATCH_FAILED = "patch_failed"
    """The candidate's patch was malformed, unsafe, or did not apply."""
    TIMEOUT = "timeout"
    """The test run hit its time limit."""
    NO_TESTS = "no_tests"
    """No test result was reported: never a pass."""
    VERIFIER_ERROR = "verifier_error"
    """A script verifier left no readable reward (missing, empty or unparseable): never a pass."""
    INFRA_ERROR = "infra_error"
    """The sandbox, environment or runner failed: neither the candidate's failure nor its success."""
    BAD_TASK = "bad_task"
    """The task itself is malformed (reported by loaders for rows that could not be read)."""

    @property
    def candidate_fault(self) -> bool:
        """Whether this status counts against the candidate (False for infrastructure and bad tasks)."""
        return self not in (Status.INFRA_ERROR, Status.BAD_TASK)


class CanaryState(str, Enum):
    """What a run's report said about its canary test (see :mod:`patchbench.canary`)."""

    FAILED = "failed"
    """As it must: the results are the run's own."""
    PASSED = "passed"
    """Tampered results: the always-failing test was reported passing."""
    MISSING = "missing"
    """Not in the report."""


class TestCheck(BaseModel):
    """One F2P or P2P id and what happened to it.

    Attributes:
        id: the id as listed in the task.
        outcome: the matched test's outcome, None when no reported test matched.
        passed: whether it counts as passed.
        message: the failure message, trimmed.
    """

    __test__ = False  # not a pytest test class, despite the name

    model_config = ConfigDict(frozen=True)

    id: str
    outcome: Outcome | None
    passed: bool
    message: str | None = None


class Finding(BaseModel):
    """One thing the static screen found in the candidate's change (see :mod:`patchbench.screen`).

    Attributes:
        code: what kind of thing (``stack-introspection``, ``test-file-read``, ``stdout-redirect``,
            ``self-exec``, ``framework-patch``, ``always-equal``, ``exit-hook-write``, ``report-write``,
            ``harness-probe``, ``test-detection``, ``environment-read``, ``unscreened``).
        path: the workspace file.
        line: its 1-based line (0: the file as a whole).
        evidence: the source line, trimmed.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    code: str
    path: str
    line: int
    evidence: str


class Durations(BaseModel):
    """Seconds spent in each phase of a run."""

    env_s: float = 0.0
    workspace_s: float = 0.0
    test_s: float = 0.0
    total_s: float = 0.0


class Verdict(BaseModel):
    """The result of ``run(task, candidate)``.

    Attributes:
        task_id: the task.
        candidate: the candidate's label (``gold``, ``empty``, a patch file name...).
        status: see :class:`Status`.
        reward: 1.0 iff resolved.
        pass_ratio: share of F2P+P2P tests that passed (None when no test ran).
        reason: one line saying why, for anything but a clean resolve.
        fail_to_pass: per-id outcome of every F2P test.
        pass_to_pass: per-id outcome of every P2P test.
        tests: every test result reported (the run's canary test is not among them).
        canary: what the report said of the run's canary test (``failed`` as it must, ``passed``:
            tampered results, ``missing``); None when the run planted none (see :mod:`patchbench.canary`).
        decoys / controls: the semantic canaries the run planted beside the canary (graded apart like
            it): decoys fail on correct code, controls pass on it (copies of fail-to-pass tests the gold
            patch passes; SQL: on perturbed data). 0 where the task's tests have no shape for them.
        build_error: the compiler's or collector's message when the code under test did not build (the
            verdict is then unresolved); None otherwise.
        runner: the runner that parsed the results.
        exit_codes: each test command's exit code (None: killed).
        apply_method: how the candidate was applied.
        changed_files: paths the candidate added, modified or deleted.
        config_files_blocked: test-configuration files the candidate touched (see ConfigPolicy).
        suspicious: what the static screen found in the candidate's change (see :mod:`patchbench.screen`).
        screened: the tests resolved the run and the static screen's policy (``--suspicious reject``, the
            default) made it unresolved: ``suspicious`` says why.
        env_key: the environment used; env_cache_hit: whether it came from the cache.
        sandbox: the sandbox backend.
        notes: anything else worth knowing (runner notes, fallbacks).
        durations: time spent per phase.
        stdout_tail / stderr_tail: the end of the test output.
    """

    # A misspelt field is an error, never silently dropped.
    model_config = ConfigDict(frozen=True, extra="forbid")

    task_id: str
    candidate: str
    status: Status
    reward: float = 0.0
    pass_ratio: float | None = None
    reason: str = ""
    fail_to_pass: tuple[TestCheck, ...] = ()
    pass_to_pass: tuple[TestCheck, ...] = ()
    tests: tuple[TestResult, ...] = ()
    canary: CanaryState | None = None
    decoys: int = 0
    controls: int = 0
    build_error: str | None = None
    runner: str | None = None
    exit_codes: tuple[int | None, ...] = ()
    apply_method: str | None = None
    changed_files: tuple[str, ...] = ()
    config_files_blocked: tuple[str, ...] = ()
    suspicious: tuple[Finding, ...] = ()
    screened: bool = False
    env_key: str | None = None
    env_cache_hit: bool | None = None
    sandbox: str | None = None
    notes: tuple[str, ...] = ()
    durations: Durations = Field(default_factory=Durations)
    stdout_tail: str = ""
    stderr_tail: str = ""

    @property
    def resolved(self) -> bool:
        """True iff the status is resolved."""
        return self.status is Status.RESOLVED
