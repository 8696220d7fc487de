"""``patchbench run``: run one candidate on the tasks of a dataset and print the verdicts."""

from __future__ import annotations

import json as _json
import logging
import os
from pathlib import Path
from typing import Annotated

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table

from ..api import bad_task_verdicts, load, run_many, select
from ..candidate import Candidate
from ..errors import PatchError
from ..sandbox import get_sandbox
from ..sandbox.process import WARNING
from ..screen import SuspiciousPolicy
from ..verdict import Status, Verdict
from ..workspace import ConfigPolicy
from ._common import EXIT_INFRA, EXIT_OK, EXIT_UNRESOLVED, err, escape, handle_errors, out, print_json
from .tasks import DatasetArg, FormatOpt, JsonOpt, ReposOpt

STATUS_STYLE = {
    Status.RESOLVED: "green",
    Status.UNRESOLVED: "red",
    Status.PATCH_FAILED: "magenta",
    Status.TIMEOUT: "yellow",
    Status.NO_TESTS: "yellow",
    Status.INFRA_ERROR: "bold red",
    Status.BAD_TASK: "bold magenta",
}


@handle_errors
def run(
    dataset: DatasetArg = "builtin",
    task: Annotated[
        list[str] | None, typer.Option("--task", "-t", help="Task id (repeatable); default all.")
    ] = None,
    patch: Annotated[
        Path | None, typer.Option("--patch", help="A unified diff (a/ b/ prefixes, -p1).")
    ] = None,
    dir: Annotated[Path | None, typer.Option("--dir", help="An edited copy of the workspace.")] = None,
    gold: Annotated[bool, typer.Option("--gold", help="The task's gold patch.")] = False,
    empty: Annotated[bool, typer.Option("--empty", help="No change: the buggy workspace as given.")] = False,
    wipe: Annotated[bool, typer.Option("--wipe", help="An empty workspace: every file removed.")] = False,
    solution: Annotated[
        bool, typer.Option("--solution", help="Harbor solution/solve.sh, run in the task's image.")
    ] = False,
    expect: Annotated[Status, typer.Option("--expect", help="Exit 0 iff every verdict has this status.")] = (
        Status.RESOLVED
    ),
    jobs: Annotated[int, typer.Option("--jobs", "-j", help="Runs in parallel (default: cores).")] = 0,
    sandbox: Annotated[
        str, typer.Option("--sandbox", help="bwrap (default) or none (NO isolation).")
    ] = "bwrap",
    config_policy: Annotated[
        ConfigPolicy,
        typer.Option(
            "--config-policy", help="Candidate-touched test configuration: strip (restore) or reject."
        ),
    ] = (ConfigPolicy.STRIP),
    suspicious: Annotated[
        SuspiciousPolicy,
        typer.Option(
            "--suspicious",
            help="Static-screen findings in the candidate's change: reject (a resolved verdict with "
            "findings is unresolved; not for the gold patch, nor for what the gold patch's change shows "
            "too) or report (evidence in the verdict only).",
        ),
    ] = (SuspiciousPolicy.REJECT),
    output: Annotated[
        Path | None, typer.Option("--output", "-o", help="Append verdicts as JSON Lines.")
    ] = None,
    repos: ReposOpt = None,
    format: FormatOpt = None,
    json: JsonOpt = False,
    verbose: Annotated[
        bool, typer.Option("--verbose", "-v", help="Log environment cache hits/misses.")
    ] = False,
) -> None:
    """Run a candidate on the tasks of a dataset and grade it by F2P/P2P, default-fail."""
    chosen = [c for c in (patch is not None, dir is not None, gold, empty, wipe, solution) if c]
    if len(chosen) != 1:
        raise PatchError(
            "choose exactly one candidate: --patch FILE, --dir DIR, --gold, --empty, --wipe or --solution"
        )
    if verbose:
        logging.basicConfig(level=logging.INFO, format="%(name)s: %(message)s")
    loaded = load(dataset, format=format)
    tasks = select(loaded.tasks, task or [])
    if patch is not None:
        cand = Candidate.from_patch_file(patch)
    elif dir is not None:
        # The directory is the final state of the workspace: deletions are resolved per task.
        cand = Candidate.directory(dir)
    elif gold:
        cand = Candidate.gold()
    elif empty:
        cand = Candidate.empty()
    elif solution:
        cand = Candidate.solution()
    else:
        cand = Candidate.wipe()
    if sandbox == "none":
        err.print(f"[bold red]WARNING: {WARNING}[/]", highlight=False)
    sb = get_sandbox(sandbox)
    jobs = jobs or (os.cpu_count() or 1)

    with Progress(
        TextColumn("[progress.description]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        console=err,
        transient=True,
        disable=json or len(tasks) < 2,
    ) as prog:
        bar = prog.add_task(f"running {cand.name}", total=len(tasks))
        verdicts = run_many(
            tasks,
            cand,
            jobs=jobs,
            sandbox=sb,
            config_policy=config_policy,
            repos=repos or (),
            suspicious_policy=suspicious,
            on_done=lambda v: prog.advance(bar),
        )
    if not task:
        verdicts += bad_task_verdicts(loaded, cand)
    if output is not None:
        output.parent.mkdir(parents=True, exist_ok=True)
        with output.open("a", encoding="utf-8") as fh:
            for v in verdicts:
                fh.write(_json.dumps(v.model_dump(mode="json"), ensure_ascii=False) + "\n")
    if json:
        print_json([v.model_dump(mode="json") for v in verdicts])
    else:
        print_table(verdicts)
    if any(v.status is Status.INFRA_ERROR for v in verdicts) and expect is not Status.INFRA_ERROR:
        raise typer.Exit(EXIT_INFRA)
    raise typer.Exit(EXIT_OK if all(v.status is expect for v in verdicts) else EXIT_UNRESOLVED)


def print_table(verdicts: list[Verdict]) -> None:
    """The verdicts as a rich table, with the reason of anything not resolved."""
    table = Table(title=f"{len(verdicts)} verdict(s)")
    for col in ("task", "candidate", "status", "reward", "F2P", "P2P", "tests", "env", "time", "reason"):
        table.add_column(col, overflow="fold")
    for v in verdicts:
        f2p = f"{sum(c.passed for c in v.fail_to_pass)}/{len(v.fail_to_pass)}"
        p2p = f"{sum(c.passed for c in v.pass_to_pass)}/{len(v.pass_to_pass)}"
        env = "" if v.env_cache_hit is None else ("cached" if v.env_cache_hit else "built")
        style = STATUS_STYLE.get(v.status, "")
        table.add_row(
            escape(v.task_id),
            escape(v.candidate),
            f"[{style}]{v.status.value}[/]",
            f"{v.reward:g}",
            f2p,
            p2p,
            str(len(v.tests)),
            env,
            f"{v.durations.total_s:.2f}s",
            escape(v.reason[:160]),
        )
    out.print(table)
    counts: dict[str, int] = {}
    for v in verdicts:
        counts[v.status.value] = counts.get(v.status.value, 0) + 1
    out.print("  ".join(f"{k}: {n}" for k, n in sorted(counts.items())), highlight=False)
