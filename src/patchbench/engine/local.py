"""The local engine: run many (task, candidate, repeat) jobs on a thread pool, through the ledger."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path

from ..candidate import Candidate
from ..harness import Defences, run
from ..sandbox import Sandbox
from ..screen import SuspiciousPolicy
from ..task import Task
from ..verdict import Verdict
from ..workspace import ConfigPolicy
from .ledger import Ledger


@dataclass(frozen=True)
class Job:
    """One run to make: a task, a candidate, and which repeat this is (0-based)."""

    task: Task
    candidate: Candidate
    repeat: int = 0


@dataclass
class EngineStats:
    """What an engine did: runs executed, runs reused from the ledger."""

    executed: int = 0
    reused: int = 0


class LocalEngine:
    """Runs jobs ``jobs`` at a time with threads (each run is a sandboxed subprocess).

    Args:
        jobs: parallel runs (default 1).
        sandbox: the sandbox backend or its name.
        ledger: where verdicts are recorded; with ``reuse`` also where they are looked up first.
        reuse: reuse verdicts already in the ledger (``--resume``).
        config_policy: see :class:`~patchbench.workspace.ConfigPolicy`.
        cache_dir: the environment cache.
        repos: local repository cache directories (repository tasks).
        defences: the defences against reward hacking (default: all on).
        suspicious_policy: what the static screen's findings do (see :func:`patchbench.run`).
    """

    def __init__(
        self,
        *,
        jobs: int = 1,
        sandbox: Sandbox | str = "bwrap",
        ledger: Ledger | None = None,
        reuse: bool = False,
        config_policy: ConfigPolicy = ConfigPolicy.STRIP,
        cache_dir: Path | None = None,
        repos: Sequence[str | Path] = (),
        defences: Defences | None = None,
        suspicious_policy: SuspiciousPolicy = SuspiciousPolicy.REJECT,
    ) -> None:
        self.jobs = max(1, jobs)
        self.sandbox = sandbox
        self.ledger = ledger
        self.reuse = reuse
        self.config_policy = config_policy
        self.cache_dir = cache_dir
        self.repos = tuple(repos)
        self.defences = defences or Defences()
        self.suspicious_policy = suspicious_policy
        self.stats = EngineStats()
        self._lock = threading.Lock()

    def run_one(self, job: Job) -> Verdict:
        """Run (or reuse) one job."""
        if self.reuse and self.ledger is not None:
            cached = self.ledger.get(job.task, job.candidate, job.repeat)
            if cached is not None:
                with self._lock:
                    self.stats.reused += 1
                return cached
        v = run(
            job.task,
            job.candidate,
            sandbox=self.sandbox,
            config_policy=self.config_policy,
            cache_dir=self.cache_dir,
            repos=self.repos,
            defences=self.defences,
            suspicious_policy=self.suspicious_policy,
        )
        with self._lock:
            self.stats.executed += 1
        if self.ledger is not None:
            self.ledger.put(job.task, job.candidate, job.repeat, v)
        return v

    def map(
        self, jobs: Sequence[Job], on_done: Callable[[Job, Verdict], None] | None = None
    ) -> list[Verdict]:
        """Run every job; verdicts come back in job order. ``on_done`` is called as each finishes."""
        results: list[Verdict | None] = [None] * len(jobs)
        if self.jobs == 1:
            for i, job in enumerate(jobs):
                results[i] = self.run_one(job)
                if on_done is not None:
                    on_done(job, results[i])  # type: ignore[arg-type]
        else:
            with ThreadPoolExecutor(max_workers=self.jobs) as pool:
                futures = {pool.submit(self.run_one, job): i for i, job in enumerate(jobs)}
                for fut in as_completed(futures):
                    i = futures[fut]
                    results[i] = fut.result()
                    if on_done is not None:
                        on_done(jobs[i], results[i])  # type: ignore[arg-type]
        return [r for r in results if r is not None]
