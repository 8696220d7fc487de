"""The public entry points: load a dataset, run candidates."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from . import formats
from .candidate import Candidate
from .data import BUILTIN_DATASETS, BUILTIN_NAMES, builtin_path
from .formats import Loaded
from .harness import run
from .sandbox import Sandbox
from .screen import SuspiciousPolicy
from .task import Task
from .verdict import Status, Verdict
from .workspace import ConfigPolicy


def load(path: str | Path | None = None, *, format: str | None = None) -> Loaded:
    """Load every task of a dataset, detecting its format.

    Args:
        path: a dataset file or directory; None or ``"builtin"`` for the whole built-in dataset,
            ``"builtin:hardbug"`` or ``"builtin:patchbench"`` for one part.
        format: a format name to skip detection (see ``patchbench.formats.FORMATS``).

    Returns:
        The tasks, and one DatasetError per row that could not be read (a batch never stops on one row).

    Raises:
        DatasetError: the dataset as a whole cannot be read.
    """
    if path is None or str(path) in BUILTIN_NAMES:
        name = "builtin" if path is None else str(path)
        parts = BUILTIN_DATASETS if name == "builtin" else (name.split(":", 1)[1],)
        out = Loaded(format="builtin" if len(parts) > 1 else "", source=name)
        for part in parts:
            got = formats.read(builtin_path(part), format)
            out.tasks += got.tasks
            out.errors += got.errors
            out.format = out.format or got.format
        return out
    return formats.read(path, format)


def bad_task_verdicts(loaded: Loaded, candidate: Candidate) -> list[Verdict]:
    """One ``bad_task`` verdict per row the loader could not read, so batch output accounts for it."""
    out = []
    for i, err in enumerate(loaded.errors):
        rid = str(err.row) if err.row is not None else f"{Path(err.source or loaded.source).name}#{i}"
        out.append(Verdict(task_id=rid, candidate=candidate.name, status=Status.BAD_TASK, reason=str(err)))
    return out


def run_many(
    tasks: Sequence[Task],
    candidate: Candidate,
    *,
    jobs: int = 1,
    sandbox: Sandbox | str = "bwrap",
    config_policy: ConfigPolicy = ConfigPolicy.STRIP,
    cache_dir: Path | None = None,
    repos: Sequence[str | Path] = (),
    on_done: Callable[[Verdict], None] | None = None,
    suspicious_policy: SuspiciousPolicy = SuspiciousPolicy.REJECT,
) -> list[Verdict]:
    """Run one candidate on many tasks, ``jobs`` at a time; verdicts come back in task order.

    ``suspicious_policy`` is :func:`patchbench.run`'s (what the static screen's findings do).
    """

    def one(task: Task) -> Verdict:
        v = run(
            task,
            candidate,
            sandbox=sandbox,
            config_policy=config_policy,
            cache_dir=cache_dir,
            repos=repos,
            suspicious_policy=suspicious_policy,
        )
        if on_done is not None:
            on_done(v)
        return v

    if jobs <= 1:
        return [one(t) for t in tasks]
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        return list(pool.map(one, tasks))


def select(tasks: Iterable[Task], ids: Sequence[str]) -> list[Task]:
    """The tasks whose id is in ``ids`` (all when ``ids`` is empty), in dataset order.

    Raises:
        DatasetError: an id matches no task.
    """
    from .errors import DatasetError

    all_tasks = list(tasks)
    if not ids:
        return all_tasks
    known = {t.id for t in all_tasks}
    unknown = [i for i in ids if i not in known]
    if unknown:
        raise DatasetError(f"no task with id {', '.join(unknown)}")
    wanted = set(ids)
    return [t for t in all_tasks if t.id in wanted]
