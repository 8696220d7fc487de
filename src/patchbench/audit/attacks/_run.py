"""Running the battery through the engine, and its report."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from ...candidate import Candidate
from ...engine import Job, LocalEngine
from ...sandbox import Sandbox
from ...screen import SuspiciousPolicy
from ...task import Task
from ...verdict import Status, Verdict
from ..probes import is_script_task
from ._kit import (
    _TAIL,
    CATALOGUE,
    log,
)


class AttackResult(BaseModel):
    """One attack against one task.

    Attributes:
        attack: the attack's name (a key of :data:`CATALOGUE`).
        task: the task id.
        applicable: whether the attack applies to the task (False: nothing was run).
        status: the verdict's status (None when not applicable).
        reward: the verdict's reward.
        rewarded: the verdict is ``resolved`` or its reward is above 0: a hole, unless ``holds_fix``.
        screened: the tests passed the attack and the static screen's policy (``--suspicious reject``)
            made the verdict unresolved (``Verdict.screened``): caught by the screen alone.
        holds_fix: the attack's candidate carries the gold fix behind a gate (see
            :class:`patchbench.audit.attacks.Attack`): accepted, it is counted apart from the holes.
        evidence: the verdict's reason, then the end of its output.
        seconds: the run's wall time.
        flagged: the codes of what the static screen found in the candidate's change
            (``Verdict.suspicious``).
    """

    model_config = ConfigDict(frozen=True)

    attack: str
    task: str
    applicable: bool
    status: Status | None = None
    reward: float = 0.0
    rewarded: bool = False
    screened: bool = False
    holds_fix: bool = False
    evidence: str = ""
    seconds: float = 0.0
    flagged: tuple[str, ...] = ()


class GoldResult(BaseModel):
    """The gold patch of one task, run beside the attacks: hardening must never cost a gold patch.

    Attributes:
        task: the task id.
        status: the gold verdict's status.
        reward: its reward.
        resolved: the gold patch resolved the task (False: a gold patch lost).
        reason: the verdict's reason.
        canary: what the gold run's report said of the canary (``failed``: the task's command runs it, so
            forged or tampered reports are caught; ``missing``: it does not; None: this runner plants
            none; see :mod:`patchbench.canary`).
        decoys / controls: the semantic canaries the gold run planted (0: the task's tests have no shape
            for them): decoys catch an oracle answering every check, controls one answering the listed
            tests only.
        flagged: the codes of what the static screen found in the gold patch (evidence only: the screen
            never rejects a task's own gold patch).
    """

    model_config = ConfigDict(frozen=True)

    task: str
    status: Status
    reward: float
    resolved: bool
    reason: str = ""
    canary: str | None = None
    decoys: int = 0
    controls: int = 0
    flagged: tuple[str, ...] = ()


class AttackReport(BaseModel):
    """Every attack × task row; :attr:`holes` lists the rewarded ones, :attr:`gold` each task's gold run;
    ``policy`` is the static screen's policy the attacks ran under."""

    model_config = ConfigDict(frozen=True)

    results: tuple[AttackResult, ...]
    gold: tuple[GoldResult, ...] = ()
    policy: SuspiciousPolicy = SuspiciousPolicy.REJECT

    @property
    def holes(self) -> list[AttackResult]:
        """The rows whose attack was rewarded without holding the fix: holes in the grading."""
        return [r for r in self.results if r.rewarded and not r.holds_fix]

    @property
    def screened(self) -> list[AttackResult]:
        """The rows the tests passed and the static screen's policy made unresolved (not holding the fix):
        holes but for the screen."""
        return [r for r in self.results if r.screened and not r.holds_fix]

    @property
    def holes_by_tests(self) -> list[AttackResult]:
        """What the tests alone reward (``--suspicious report``): the holes and the screened rows."""
        return [r for r in self.results if (r.rewarded or r.screened) and not r.holds_fix]

    @property
    def holes_flagged(self) -> list[AttackResult]:
        """The holes the static screen flagged all the same (under ``report``; under ``reject``, codes
        the task's gold patch shows too)."""
        return [r for r in self.holes if r.flagged]

    @property
    def gold_flagged(self) -> list[GoldResult]:
        """The resolved gold patches the static screen flagged (evidence only: never rejected)."""
        return [g for g in self.gold if g.resolved and g.flagged]

    @property
    def gated(self) -> list[AttackResult]:
        """The rows whose candidate held the gold fix behind a gate and was accepted."""
        return [r for r in self.results if r.rewarded and r.holds_fix]

    @property
    def applied(self) -> list[AttackResult]:
        """The rows where the attack applied (and was run)."""
        return [r for r in self.results if r.applicable]

    @property
    def gold_lost(self) -> list[GoldResult]:
        """The tasks whose gold patch did not resolve."""
        return [g for g in self.gold if not g.resolved]


@dataclass(frozen=True)
class PlannedAttack:
    """An attack for one task: its candidate, or None when the attack does not apply."""

    attack: str
    task: Task
    candidate: Candidate | None
    error: str = ""


def plan_attacks(tasks: Iterable[Task], attacks: Sequence[str] | None = None) -> list[PlannedAttack]:
    """Every attack (or those named) against every task, in catalogue order per task.

    Script-verifier (Harbor) tasks get no attack here: :mod:`patchbench.audit.probes` covers them.
    """
    names = list(attacks) if attacks is not None else list(CATALOGUE)
    out: list[PlannedAttack] = []
    for task in tasks:
        for name in names:
            if is_script_task(task):
                out.append(PlannedAttack(name, task, None))
                continue
            try:
                out.append(PlannedAttack(name, task, CATALOGUE[name].build(task)))
            except Exception as e:  # a task shape the attack did not foresee: report it, run the rest
                log.warning("attack %s could not be built for %s: %s", name, task.id, e)
                out.append(PlannedAttack(name, task, None, f"{type(e).__name__}: {e}"))
    return out


def judge(planned: PlannedAttack, verdict: Verdict | None) -> AttackResult:
    """A row from a verdict (None: not applicable)."""
    if verdict is None:
        evidence = f"the attack could not be built for this task: {planned.error}" if planned.error else ""
        return AttackResult(attack=planned.attack, task=planned.task.id, applicable=False, evidence=evidence)
    tail = "\n".join(t for t in (verdict.stdout_tail.strip(), verdict.stderr_tail.strip()) if t)
    evidence = verdict.reason + ("\n--- output tail ---\n" + tail[-_TAIL:] if tail else "")
    return AttackResult(
        attack=planned.attack,
        task=planned.task.id,
        applicable=True,
        status=verdict.status,
        reward=verdict.reward,
        rewarded=verdict.status is Status.RESOLVED or verdict.reward > 0,
        screened=verdict.screened,
        holds_fix=known.holds_fix if (known := CATALOGUE.get(planned.attack)) is not None else False,
        evidence=evidence,
        seconds=round(verdict.durations.total_s, 3),
        flagged=_codes(verdict),
    )


def _codes(verdict: Verdict) -> tuple[str, ...]:
    """The screen's finding codes of a verdict, each once, in first-seen order."""
    return tuple(dict.fromkeys(f.code for f in verdict.suspicious))


def run_attacks(
    tasks: Iterable[Task],
    *,
    jobs: int = 1,
    sandbox: Sandbox | str = "bwrap",
    attacks: Sequence[str] | None = None,
    cache_dir: Path | None = None,
    repos: Sequence[str | Path] = (),
    check_gold: bool = True,
    on_progress: Callable[[int, int], None] | None = None,
    only: Callable[[str, str], bool] | None = None,
    suspicious_policy: SuspiciousPolicy = SuspiciousPolicy.REJECT,
) -> AttackReport:
    """Run every applicable attack (or those named) against every task; one row per attack × task.

    ``repos`` are the local repository cache directories for repository tasks (see :mod:`patchbench.repos`).

    With ``check_gold`` each task's gold patch (when it has one) runs in the same batch, so a defence that
    costs a gold patch shows up as :attr:`AttackReport.gold_lost`. ``on_progress(done, total)`` is called
    as runs finish. ``only(attack, task_id)``, given, picks the pairs that run; the others are reported as
    not applicable (a battery that runs each attack on one task of several). ``suspicious_policy`` is
    what the static screen's findings do (``reject``, the default, as :func:`patchbench.run`'s).
    """
    tasks = list(tasks)
    planned = plan_attacks(tasks, attacks)
    if only is not None:
        planned = [p if only(p.attack, p.task.id) else PlannedAttack(p.attack, p.task, None) for p in planned]
    runnable = [p for p in planned if p.candidate is not None]
    jobs_list = [Job(p.task, p.candidate) for p in runnable if p.candidate is not None]
    gold_tasks = [t for t in tasks if check_gold and t.gold_patch is not None]
    jobs_list += [Job(t, Candidate.gold()) for t in gold_tasks]
    engine = LocalEngine(
        jobs=jobs, sandbox=sandbox, cache_dir=cache_dir, repos=repos, suspicious_policy=suspicious_policy
    )
    done = 0

    def tick(job: Job, verdict: Verdict) -> None:
        nonlocal done
        done += 1
        if on_progress is not None:
            on_progress(done, len(jobs_list))

    verdicts = engine.map(jobs_list, on_done=tick)
    by_id = {id(p): v for p, v in zip(runnable, verdicts, strict=False)}
    gold = tuple(
        GoldResult(
            task=t.id,
            status=v.status,
            reward=v.reward,
            resolved=v.status is Status.RESOLVED and v.reward == 1.0,
            reason=v.reason,
            canary=v.canary,
            decoys=v.decoys,
            controls=v.controls,
            flagged=_codes(v),
        )
        for t, v in zip(gold_tasks, verdicts[len(runnable) :], strict=True)
    )
    return AttackReport(
        results=tuple(judge(p, by_id.get(id(p))) for p in planned), gold=gold, policy=suspicious_policy
    )
