"""One run's context: what its phases have learnt so far, and the one place its Verdict is built.

:func:`patchbench.harness.run` and the two verifications it dispatches to (per-test runners in
:mod:`patchbench.harness`, script verifiers in :mod:`patchbench.verifiers.flow`) fill a :class:`RunContext`
in as they go (the sandbox, the environment, how the candidate was applied, the commands' exit codes and
output) and return :meth:`RunContext.verdict` with the outcome. No Verdict is assembled from a bag of
keywords anywhere else; :class:`~patchbench.verdict.Verdict` forbids unknown fields besides.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from .lifecycle import RunDir
from .results import TestResult
from .screen import DATA_EXTENSIONS, MAX_BYTES, SuspiciousPolicy, enforce, screen
from .task import Task
from .verdict import CanaryState, Durations, Finding, Status, TestCheck, Verdict
from .workspace import Baseline, read_changed

__all__ = ["TAIL", "RunContext", "quota_hit", "screen_change"]

#: Characters of each output stream kept in a verdict.
TAIL = 4000


@dataclass
class RunContext:
    """The state of one run of one candidate on one task, filled in phase by phase.

    Attributes:
        task_id / candidate: what runs (the candidate's label).
        policy: what the static screen's findings do to the verdict.
        reference: the candidate is the task's gold patch (its findings are evidence only).
        exempt: the finding codes the task's gold patch shows too (evidence only; see
            :func:`patchbench.screen.enforce`).
        started: the run's start (``time.monotonic()``), for ``durations.total_s``.
        notes: anything worth knowing, in order.
        durations: seconds per phase.
        runner / sandbox / env_key / env_cache_hit: the runner, sandbox backend and environment used.
        apply_method / changed_files / config_files_blocked / suspicious: how the candidate was applied,
            what it changed, the test configuration restored or rejected, the static screen's findings.
        exit_codes / stdout_tail / stderr_tail: the commands run so far and the end of the last one's output.
        decoys / controls: the semantic canaries planted (see :class:`patchbench.verdict.Verdict`).
    """

    task_id: str
    candidate: str
    policy: SuspiciousPolicy = SuspiciousPolicy.REJECT
    reference: bool = False
    exempt: frozenset[str] = frozenset()
    started: float = field(default_factory=time.monotonic)
    notes: list[str] = field(default_factory=list)
    durations: Durations = field(default_factory=Durations)
    runner: str | None = None
    sandbox: str | None = None
    env_key: str | None = None
    env_cache_hit: bool | None = None
    apply_method: str | None = None
    changed_files: tuple[str, ...] = ()
    config_files_blocked: tuple[str, ...] = ()
    suspicious: tuple[Finding, ...] = ()
    exit_codes: list[int | None] = field(default_factory=list)
    decoys: int = 0
    controls: int = 0
    stdout_tail: str = ""
    stderr_tail: str = ""

    def output(self, stdout: str, stderr: str) -> None:
        """Keep the end of a command's output."""
        self.stdout_tail, self.stderr_tail = stdout[-TAIL:], stderr[-TAIL:]

    def verdict(
        self,
        status: Status,
        reason: str = "",
        *,
        reward: float = 0.0,
        pass_ratio: float | None = None,
        fail_to_pass: Sequence[TestCheck] = (),
        pass_to_pass: Sequence[TestCheck] = (),
        tests: Iterable[TestResult] = (),
        canary: CanaryState | None = None,
        build_error: str | None = None,
    ) -> Verdict:
        """The run's Verdict: everything the context holds, the outcome given, the total time, and the
        static screen's policy applied (``reject``, the default, turns a resolved run with findings
        unresolved)."""
        durations = self.durations.model_copy(update={"total_s": time.monotonic() - self.started})
        v = Verdict(
            task_id=self.task_id,
            candidate=self.candidate,
            status=status,
            reward=reward,
            pass_ratio=pass_ratio,
            reason=reason,
            fail_to_pass=tuple(fail_to_pass),
            pass_to_pass=tuple(pass_to_pass),
            tests=tuple(tests),
            canary=canary,
            build_error=build_error,
            runner=self.runner,
            exit_codes=tuple(self.exit_codes),
            apply_method=self.apply_method,
            changed_files=self.changed_files,
            config_files_blocked=self.config_files_blocked,
            suspicious=self.suspicious,
            env_key=self.env_key,
            env_cache_hit=self.env_cache_hit,
            sandbox=self.sandbox,
            decoys=self.decoys,
            controls=self.controls,
            notes=tuple(self.notes),
            durations=durations,
            stdout_tail=self.stdout_tail,
            stderr_tail=self.stderr_tail,
        )
        return enforce(v, self.policy, reference=self.reference, exempt=self.exempt)


def screen_change(task: Task, changed: set[str], root: Path, baseline: Baseline) -> tuple[Finding, ...]:
    """The static screen's findings on what the candidate changed (see :mod:`patchbench.screen`)."""
    # every changed file but data and documents: code loaded from a file of another name is screened too
    return screen(task, read_changed(changed, root, baseline, limit=MAX_BYTES, skip=DATA_EXTENSIONS))


def quota_hit(rd: RunDir) -> str:
    """Why a run that filled its disk quota is the candidate's failure, in one phrase."""
    size = f"{(rd.quota or 0) / 2**30:g} GiB"
    return (
        f"filled the run's {size} disk quota (workspace, reports and logs together): its writes were refused"
    )
