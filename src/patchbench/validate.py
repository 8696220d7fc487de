"""Dataset validation: the bidirectional contract of seeds 002 and 004, run through the one flow.

Per task, every check runs ``repeat`` times (default 2):

* **pre-fix** (the ``empty`` candidate): every F2P fails, every P2P passes, and — HardBug's stricter
  form — the set of tests that do not pass is exactly F2P (extra failures are reported by name);
* **post-fix** (``gold``): the verdict is resolved, every F2P and P2P passes;
* **determinism**: a test whose outcome differs between repeats of the same candidate is flaky;
* **probes**: an empty workspace (``wipe``) and a no-op candidate (a blank line appended to a file the gold
  patch touches) must not be resolved;
* **ids**: an F2P/P2P id that matches no reported test in any run is reported by name;
* **leak screen**: the prompt must not tell where the fix goes (:mod:`patchbench.leak`): naming an
  internal helper the gold patch edits, or quoting a changed line or the fixed expression, is a ``leak``;
  a name or the buggy line seen only in quoted error output is a ``hint`` (a problem only when the
  threshold is ``hint``); naming the entry point the failing tests call is harmless;
* **context slice** (repository tasks): every context file must be a true slice of the repository at
  base_commit.

Each task also gets seed 000's reward-signal class: ``test-driven`` (the buggy code runs and tests
decide), ``does-not-build`` (the buggy code does not import/compile: the agent must fix that first),
``timeout``, ``broken`` (gold does not resolve), ``infra`` (the machine failed; rerun), and ``fallback``
(script-verifier tasks whose verifier cannot be graded per test yet).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from enum import Enum
from pathlib import Path

from pydantic import BaseModel, Field

from .candidate import Candidate
from .engine import Job, Ledger, LocalEngine
from .errors import InputError
from .leak import LeakHit, LeakLevel, parse_patch, screen_prompt
from .results import Outcome
from .runners import get_runner, is_listed
from .sandbox import Sandbox
from .task import Task, VerifierKind
from .verdict import Status, Verdict

PRE = "empty"
_NONE_THRESHOLD = "the leak threshold is 'leak' or 'hint': a 'none' finding never breaks a task"
POST = "gold"
WIPE = "wipe"
NOOP = "noop"


class ProblemKind(str, Enum):
    """The stable code of a contract break."""

    GOLD_NOT_RESOLVED = "gold_not_resolved"
    F2P_PASSES_BEFORE_FIX = "f2p_passes_before_fix"
    P2P_FAILS_BEFORE_FIX = "p2p_fails_before_fix"
    EXTRA_FAILURES_BEFORE_FIX = "extra_failures_before_fix"
    FLAKY = "flaky"
    UNKNOWN_TEST_ID = "unknown_test_id"
    PROBE_REWARDED = "probe_rewarded"
    LEAK = "leak"
    LEAK_HINT = "leak_hint"
    NO_GOLD_PATCH = "no_gold_patch"
    NO_FAIL_TO_PASS = "no_fail_to_pass"
    CONTEXT_MISMATCH = "context_mismatch"
    SCRIPT_VERIFIER = "script_verifier"
    INFRA_ERROR = "infra_error"


class Signal(str, Enum):
    """The reward-signal class of a task (see the module docstring)."""

    TEST_DRIVEN = "test-driven"
    DOES_NOT_BUILD = "does-not-build"
    FALLBACK = "fallback"
    TIMEOUT = "timeout"
    INFRA = "infra"
    BROKEN = "broken"
    UNKNOWN = ""


class Problem(BaseModel):
    """One way a task breaks the contract.

    Attributes:
        kind: its stable code (:class:`ProblemKind`).
        message: one line for people.
        tests: the test ids concerned, when there are any.
    """

    kind: ProblemKind
    message: str
    tests: list[str] = Field(default_factory=list)


class RunSummary(BaseModel):
    """One run of one candidate, as the report shows it."""

    candidate: str
    repeat: int
    status: Status
    reward: float
    reason: str = ""
    outcomes: dict[str, Outcome] = Field(default_factory=dict)
    seconds: float = 0.0


class TaskReport(BaseModel):
    """Everything validation found about one task.

    Attributes:
        task_id: the task.
        language: its language.
        ok: True when the task keeps the whole contract.
        signal: the reward-signal class (see the module docstring).
        problems: every contract break, with its reason.
        flaky_tests: tests whose outcome differed between repeats.
        extra_failures: tests failing before the fix that are not in F2P (HardBug's exact-F2P rule).
        derived_fail_to_pass / derived_pass_to_pass: the lists the runs support (``--derive``).
        leaks: every leak-screen finding, with its level (``leak``, ``hint``, ``none``), evidence and reason.
        leak_level: the highest level among ``leaks`` (``none`` when there is none, or the screen was off).
        canary: whether the task's test command runs the harness's canary (see :mod:`patchbench.canary`),
            from the gold runs: ``runs`` (forged or tampered reports are caught), ``not-run`` (the command
            never runs injected tests: a forged report cannot be told from a real one), ``none`` (this
            runner gets no canary), ``unknown`` (no gold run reported tests).
        runs: every run.
    """

    task_id: str
    language: str = ""
    ok: bool = False
    signal: Signal = Signal.UNKNOWN
    problems: list[Problem] = Field(default_factory=list)
    flaky_tests: list[str] = Field(default_factory=list)
    extra_failures: list[str] = Field(default_factory=list)
    derived_fail_to_pass: list[str] = Field(default_factory=list)
    derived_pass_to_pass: list[str] = Field(default_factory=list)
    leaks: list[LeakHit] = Field(default_factory=list)
    leak_level: LeakLevel = LeakLevel.NONE
    canary: str = "unknown"
    runs: list[RunSummary] = Field(default_factory=list)

    @property
    def flaky(self) -> bool:
        """Whether any test was flaky."""
        return bool(self.flaky_tests)


class ValidationReport(BaseModel):
    """The report a dataset publisher ships (``validation_report.json``; schema in docs/validate.md).

    Attributes:
        dataset: the dataset path; format: its format.
        repeat: runs per check.
        tasks: one report per task.
        distribution: reward-signal class → task count.
        canary_coverage: :attr:`TaskReport.canary` value → task count.
        passed / failed: tasks that keep / break the contract.
        runs_executed / runs_reused: runs made now / taken from the ledger (``--resume``).
        seconds: wall time.
        unreadable_rows: one line per dataset row that could not be read (they break the contract too).
    """

    schema_version: int = 1
    dataset: str = ""
    format: str = ""
    created: str = ""
    repeat: int = 2
    tasks: list[TaskReport] = Field(default_factory=list)
    distribution: dict[str, int] = Field(default_factory=dict)
    canary_coverage: dict[str, int] = Field(default_factory=dict)
    passed: int = 0
    failed: int = 0
    runs_executed: int = 0
    runs_reused: int = 0
    seconds: float = 0.0
    unreadable_rows: list[str] = Field(default_factory=list)

    @property
    def ok(self) -> bool:
        """True when every task keeps the contract and every row could be read."""
        return self.failed == 0 and not self.unreadable_rows


def noop_candidate(task: Task) -> Candidate:
    """A candidate that changes nothing that matters: a blank line appended to a file gold touches."""
    targets = [c.path for c in parse_patch(task.gold_patch or "")]
    ws = task.workspace_map()
    path = next((p for p in targets if p in ws), None) or next(iter(sorted(ws)), None)
    if path is None:
        # A repository workspace (files not held in the task): add an inert file instead.
        return Candidate.files({"PATCHBENCH_NOOP.txt": "no change\n"}, label=NOOP)
    return Candidate.files({path: ws[path] + "\n"}, label=NOOP)


def plan(task: Task, repeat: int, probes: bool) -> list[Job]:
    """The runs validation makes for one task."""
    jobs = [Job(task, Candidate.empty(), r) for r in range(repeat)]
    if task.gold_patch:
        jobs += [Job(task, Candidate.gold(), r) for r in range(repeat)]
    if probes:
        jobs += [Job(task, Candidate.wipe(), 0), Job(task, noop_candidate(task), 0)]
    return jobs


def _summary(v: Verdict, repeat: int) -> RunSummary:
    outcomes: dict[str, Outcome] = {}
    for t in v.tests:
        prev = outcomes.get(t.id)
        if prev is None or (prev.ok and not t.outcome.ok):
            outcomes[t.id] = t.outcome
    return RunSummary(
        candidate=v.candidate,
        repeat=repeat,
        status=v.status,
        reward=v.reward,
        reason=v.reason,
        outcomes=outcomes,
        seconds=round(v.durations.total_s, 3),
    )


def judge(
    task: Task,
    verdicts: Sequence[tuple[Job, Verdict]],
    *,
    leak: bool = True,
    leak_level: LeakLevel = LeakLevel.LEAK,
) -> TaskReport:
    """Turn one task's runs into its report. Pure: no runs are made here.

    ``leak_level`` is the lowest leak-screen level that breaks the contract (``leak`` or ``hint``).
    """
    rep = TaskReport(task_id=task.id, language=task.language)
    by: dict[str, list[Verdict]] = {}
    for job, v in verdicts:
        by.setdefault(job.candidate.name, []).append(v)
        rep.runs.append(_summary(v, job.repeat))
    pre, post = by.get(PRE, []), by.get(POST, [])
    f2p, p2p = list(task.fail_to_pass), list(task.pass_to_pass)
    problems = rep.problems
    rep.canary = _canary_coverage(post)

    infra = [v for vs in by.values() for v in vs if v.status is Status.INFRA_ERROR]
    if infra:
        problems.append(
            Problem(
                kind=ProblemKind.INFRA_ERROR,
                message=f"{len(infra)} run(s) hit an infrastructure error, e.g. {infra[0].reason}",
            )
        )
    mismatches = sorted(
        {
            n.split(": ", 1)[1]
            for vs in by.values()
            for v in vs
            for n in v.notes
            if n.startswith("context_mismatch: ")
        }
    )
    for m in mismatches:
        problems.append(Problem(kind=ProblemKind.CONTEXT_MISMATCH, message=m))
    if task.verifier is not None and task.verifier.kind is VerifierKind.SCRIPT:
        rep.signal = Signal.FALLBACK
        problems.append(
            Problem(
                kind=ProblemKind.SCRIPT_VERIFIER, message="script verifiers cannot be validated per test yet"
            )
        )
        return _finish(rep)
    if not task.gold_patch:
        problems.append(Problem(kind=ProblemKind.NO_GOLD_PATCH, message="the task has no gold patch"))
    if not f2p:
        problems.append(
            Problem(kind=ProblemKind.NO_FAIL_TO_PASS, message="the task lists no fail_to_pass test")
        )

    def outcome(v: Verdict, test: str) -> Outcome | None:
        for c in v.fail_to_pass + v.pass_to_pass:
            if c.id == test:
                return c.outcome
        return None

    # ids that match nothing anywhere
    ran = [v for v in pre + post if v.tests]
    unknown = [t for t in f2p + p2p if ran and all(outcome(v, t) is None for v in ran)]
    if unknown:
        problems.append(
            Problem(
                kind=ProblemKind.UNKNOWN_TEST_ID,
                message=f"{len(unknown)} listed id(s) match no reported test in any run",
                tests=unknown,
            )
        )
    usable_pre = [v for v in pre if v.status is not Status.INFRA_ERROR]
    usable_post = [v for v in post if v.status is not Status.INFRA_ERROR]

    # pre-fix
    passes_before = sorted({t for v in usable_pre for t in f2p if outcome(v, t) is Outcome.PASSED})
    if passes_before:
        problems.append(
            Problem(
                kind=ProblemKind.F2P_PASSES_BEFORE_FIX,
                message="F2P test(s) pass on the buggy code",
                tests=passes_before,
            )
        )
    p2p_bad_before = sorted(
        {t for v in usable_pre for t in p2p if t not in unknown and outcome(v, t) is not Outcome.PASSED}
    )
    if p2p_bad_before:
        problems.append(
            Problem(
                kind=ProblemKind.P2P_FAILS_BEFORE_FIX,
                message="P2P test(s) do not pass on the buggy code",
                tests=p2p_bad_before,
            )
        )
    extra = sorted(
        {
            t.id
            for v in usable_pre
            for t in v.tests
            if t.outcome in (Outcome.FAILED, Outcome.ERROR) and not _listed(v, t.id, f2p)
        }
    )
    if extra:
        rep.extra_failures = extra
        problems.append(
            Problem(
                kind=ProblemKind.EXTRA_FAILURES_BEFORE_FIX,
                message="tests outside F2P fail on the buggy code (HardBug: failing set must equal F2P)",
                tests=extra,
            )
        )

    # post-fix
    for v in usable_post:
        if v.status is not Status.RESOLVED:
            problems.append(
                Problem(
                    kind=ProblemKind.GOLD_NOT_RESOLVED,
                    message=f"gold is {v.status.value}: {v.reason}",
                    tests=[c.id for c in v.fail_to_pass + v.pass_to_pass if not c.passed],
                )
            )
            break

    # determinism
    flaky: set[str] = set()
    for vs in (usable_pre, usable_post):
        if len(vs) < 2:
            continue
        maps = [_summary(v, 0).outcomes for v in vs]
        ids = set().union(*maps)
        for t in ids:
            if len({m.get(t) for m in maps}) > 1:
                flaky.add(t)
        if len({v.status for v in vs}) > 1:
            flaky.add("(verdict status)")
    if flaky:
        rep.flaky_tests = sorted(flaky)
        problems.append(
            Problem(kind=ProblemKind.FLAKY, message="outcomes differ between repeats", tests=rep.flaky_tests)
        )

    # probes
    for name in (WIPE, NOOP):
        for v in by.get(name, []):
            if v.status is Status.RESOLVED or v.reward > 0:
                problems.append(
                    Problem(
                        kind=ProblemKind.PROBE_REWARDED,
                        message=f"the {name} probe was rewarded ({v.status.value})",
                    )
                )

    # derived lists
    if usable_pre and usable_post:
        pre_maps = [_summary(v, 0).outcomes for v in usable_pre]
        post_maps = [_summary(v, 0).outcomes for v in usable_post]
        all_ids = sorted(set().union(*pre_maps, *post_maps))
        rep.derived_fail_to_pass = [
            t
            for t in all_ids
            if all(m.get(t) is not Outcome.PASSED for m in pre_maps)
            and all(m.get(t) is Outcome.PASSED for m in post_maps)
        ]
        rep.derived_pass_to_pass = [
            t for t in all_ids if all(m.get(t) is Outcome.PASSED for m in pre_maps + post_maps)
        ]

    if leak:
        if leak_level is LeakLevel.NONE:
            raise InputError(_NONE_THRESHOLD)
        found = screen_prompt(task)
        rep.leaks, rep.leak_level = found.hits, found.level
        for h in found.at_least(leak_level):
            problems.append(
                Problem(
                    kind=ProblemKind.LEAK if h.level is LeakLevel.LEAK else ProblemKind.LEAK_HINT,
                    message=f"prompt {h.kind.replace('_', ' ')} {h.symbol!r} ({h.file}): {h.reason}; "
                    f"evidence: {h.evidence}",
                )
            )

    # reward-signal class
    if any(v.status is Status.TIMEOUT for v in pre + post):
        rep.signal = Signal.TIMEOUT
    elif infra and not (usable_pre and usable_post):
        rep.signal = Signal.INFRA
    elif any(p.kind is ProblemKind.GOLD_NOT_RESOLVED for p in problems) or not task.gold_patch:
        rep.signal = Signal.BROKEN
    elif usable_pre and all(_does_not_build(v) for v in usable_pre):
        rep.signal = Signal.DOES_NOT_BUILD
    else:
        rep.signal = Signal.TEST_DRIVEN
    return _finish(rep)


def _listed(v: Verdict, test_id: str, wanted: list[str]) -> bool:
    """:func:`patchbench.runners.is_listed` with the run's own runner (TAP's when it is unknown)."""
    try:
        runner = get_runner(v.runner or "tap")
    except KeyError:
        runner = get_runner("tap")
    return is_listed(runner, test_id, wanted)


def _canary_coverage(gold_runs: Sequence[Verdict]) -> str:
    """``runs``, ``not-run``, ``none`` or ``unknown``: see :attr:`TaskReport.canary`."""
    ran = [v for v in gold_runs if v.tests]
    if any(v.canary == "failed" for v in gold_runs):
        return "runs"
    if ran and all(v.canary is None for v in ran):
        return "none"
    if ran:
        return "not-run"
    return "unknown"


def _does_not_build(v: Verdict) -> bool:
    if v.build_error is not None:
        return True
    return bool(v.tests) and all(t.outcome is Outcome.ERROR for t in v.tests)


def _finish(rep: TaskReport) -> TaskReport:
    rep.ok = not rep.problems
    return rep


def validate(
    tasks: Sequence[Task],
    *,
    repeat: int = 2,
    jobs: int = 1,
    sandbox: Sandbox | str = "bwrap",
    ledger: Ledger | None = None,
    resume: bool = False,
    probes: bool = True,
    leak: bool = True,
    leak_level: LeakLevel = LeakLevel.LEAK,
    dataset: str = "",
    format: str = "",
    on_progress: Callable[[int, int], None] | None = None,
    repos: Sequence[str | Path] = (),
) -> ValidationReport:
    """Validate tasks against the contract; see the module docstring.

    Args:
        tasks: the tasks.
        repeat: runs per check (determinism needs 2 or more).
        jobs: runs in parallel.
        sandbox: the sandbox backend or its name.
        ledger: record every run here (and, with ``resume``, reuse what is there).
        resume: reuse verdicts already in the ledger.
        probes: run the empty-workspace and no-op probes.
        leak: run the leak screen.
        leak_level: the lowest leak-screen level that breaks the contract: ``leak`` (default) or
            ``hint`` (strict); ``none``-level findings never do.
        dataset / format: for the report header.
        on_progress: called with (runs done, runs total) after each run.
        repos: local repository cache directories (repository tasks).
    """
    if leak and leak_level is LeakLevel.NONE:  # refused before any run is made, not after
        raise InputError(_NONE_THRESHOLD)
    t0 = time.monotonic()
    engine = LocalEngine(jobs=jobs, sandbox=sandbox, ledger=ledger, reuse=resume, repos=repos)
    all_jobs = [j for t in tasks for j in plan(t, repeat, probes)]
    done = [0]

    def tick(_job: Job, _v: Verdict) -> None:
        done[0] += 1
        if on_progress is not None:
            on_progress(done[0], len(all_jobs))

    verdicts = engine.map(all_jobs, on_done=tick)
    per_task: dict[str, list[tuple[Job, Verdict]]] = {}
    for job, v in zip(all_jobs, verdicts, strict=True):
        per_task.setdefault(job.task.id, []).append((job, v))
    report = ValidationReport(
        dataset=dataset, format=format, repeat=repeat, created=time.strftime("%Y-%m-%dT%H:%M:%S")
    )
    for t in tasks:
        report.tasks.append(judge(t, per_task.get(t.id, []), leak=leak, leak_level=leak_level))
    for tr in report.tasks:
        report.distribution[tr.signal.value] = report.distribution.get(tr.signal.value, 0) + 1
        report.canary_coverage[tr.canary] = report.canary_coverage.get(tr.canary, 0) + 1
    report.passed = sum(tr.ok for tr in report.tasks)
    report.failed = len(report.tasks) - report.passed
    report.runs_executed = engine.stats.executed
    report.runs_reused = engine.stats.reused
    report.seconds = round(time.monotonic() - t0, 2)
    return report


def apply_report(
    tasks: Sequence[Task], report: ValidationReport, *, derive: bool, drop_flaky: bool
) -> list[Task]:
    """The dataset rewritten from a report: derived F2P/P2P lists, flaky tasks dropped."""
    by_id = {tr.task_id: tr for tr in report.tasks}
    out: list[Task] = []
    for t in tasks:
        tr = by_id.get(t.id)
        if tr is None:
            out.append(t)
            continue
        if drop_flaky and tr.flaky:
            continue
        if derive and (tr.derived_fail_to_pass or tr.derived_pass_to_pass):
            t = t.model_copy(
                update={
                    "fail_to_pass": tuple(tr.derived_fail_to_pass),
                    "pass_to_pass": tuple(tr.derived_pass_to_pass),
                }
            )
        out.append(t)
    return out
