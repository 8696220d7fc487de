"""``patchbench validate``: check a dataset against the contract and write the publisher's report."""

from __future__ import annotations

import os
from enum import Enum
from pathlib import Path
from typing import Annotated

import typer
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table

from ..api import load, select
from ..engine import Ledger
from ..errors import DatasetError
from ..formats import write
from ..leak import LeakLevel
from ..report.validation import write_reports
from ..sandbox import get_sandbox
from ..validate import ProblemKind, apply_report
from ..validate import validate as run_validation
from ._common import (
    EXIT_INFRA,
    EXIT_OK,
    EXIT_UNRESOLVED,
    err,
    escape,
    handle_errors,
    out,
    print_json,
    skipped_row,
)
from .tasks import DatasetArg, FormatOpt, JsonOpt, ReposOpt


class LeakThreshold(str, Enum):
    """The leak-screen levels that can break a task (``none`` findings never do)."""

    LEAK = "leak"
    HINT = "hint"


@handle_errors
def validate(
    dataset: DatasetArg = "builtin",
    task: Annotated[
        list[str] | None, typer.Option("--task", "-t", help="Task id (repeatable); default all.")
    ] = None,
    repeat: Annotated[int, typer.Option("--repeat", help="Runs per check (determinism needs 2+).")] = 2,
    jobs: Annotated[int, typer.Option("--jobs", "-j", help="Runs in parallel (default: cores).")] = 0,
    report_dir: Annotated[
        Path, typer.Option("--report-dir", help="Where validation_report.md/.json go.")
    ] = Path("."),
    ledger: Annotated[
        Path | None,
        typer.Option("--ledger", help="SQLite ledger (default: REPORT_DIR/validation_ledger.sqlite)."),
    ] = None,
    resume: Annotated[
        bool,
        typer.Option("--resume", help="Reuse runs already in the ledger (interrupted or unchanged tasks)."),
    ] = False,
    probes: Annotated[
        bool, typer.Option("--probes/--no-probes", help="Empty-workspace and no-op probes.")
    ] = True,
    leak: Annotated[bool, typer.Option("--leak/--no-leak", help="Leak screen of prompts.")] = True,
    leak_level: Annotated[
        LeakThreshold,
        typer.Option(
            "--leak-level",
            help="Lowest leak-screen level that breaks a task: leak (default) or hint (strict).",
            case_sensitive=False,
        ),
    ] = LeakThreshold.LEAK,
    derive: Annotated[
        bool,
        typer.Option("--derive", help="Compute F2P/P2P from the runs (write them with --output-dataset)."),
    ] = False,
    drop_flaky: Annotated[
        bool, typer.Option("--drop-flaky", help="Leave flaky tasks out of --output-dataset.")
    ] = False,
    output_dataset: Annotated[
        Path | None,
        typer.Option(
            "--output-dataset",
            "-o",
            help="Write the dataset back (same format) with --derive/--drop-flaky applied.",
        ),
    ] = None,
    allow_failures: Annotated[
        bool, typer.Option("--allow-failures", help="Exit 0 even when tasks break the contract.")
    ] = False,
    sandbox: Annotated[
        str, typer.Option("--sandbox", help="bwrap (default) or none (NO isolation).")
    ] = "bwrap",
    repos: ReposOpt = None,
    format: FormatOpt = None,
    json: JsonOpt = False,
) -> None:
    """Validate a dataset: buggy fails exactly F2P, gold passes all, repeated checks, probes, leak screen.

    Writes validation_report.md and validation_report.json. Exit 0 when every task keeps the contract,
    1 when some task breaks it, 3 when only infrastructure errors stood in the way.
    """
    loaded = load(dataset, format=format)
    tasks = select(loaded.tasks, task or [])
    if output_dataset is not None and loaded.format == "builtin":
        raise DatasetError(
            "--output-dataset needs one format: validate builtin:hardbug or builtin:patchbench"
        )
    sb = get_sandbox(sandbox)
    db = Ledger(ledger or report_dir / "validation_ledger.sqlite")
    with Progress(
        TextColumn("validating"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        console=err,
        transient=True,
        disable=json,
    ) as prog:
        bar = prog.add_task("runs", total=None)

        def progress(done: int, total: int) -> None:
            prog.update(bar, completed=done, total=total)

        report = run_validation(
            tasks,
            repeat=repeat,
            jobs=jobs or (os.cpu_count() or 1),
            sandbox=sb,
            ledger=db,
            resume=resume,
            probes=probes,
            leak=leak,
            leak_level=LeakLevel(leak_level.value),
            dataset=str(dataset),
            format=loaded.format,
            on_progress=progress,
            repos=repos or (),
        )
    if not task:
        report.unreadable_rows = [str(e) for e in loaded.errors]
    db.close()
    md, js = write_reports(report, report_dir)
    if output_dataset is not None:
        write(
            apply_report(tasks, report, derive=derive, drop_flaky=drop_flaky), output_dataset, loaded.format
        )
    if json:
        print_json(report.model_dump(mode="json"))
    else:
        table = Table(title=f"validation of {dataset}: {report.passed}/{len(report.tasks)} keep the contract")
        for col in ("task", "result", "signal", "problems"):
            table.add_column(col, overflow="fold")
        for tr in report.tasks:
            probs = "; ".join(f"{p.kind.value}: {p.message}" for p in tr.problems) or ""
            table.add_row(
                escape(tr.task_id),
                "[green]ok[/]" if tr.ok else "[red]broken[/]",
                tr.signal.value,
                escape(probs[:300]),
            )
        out.print(table)
        out.print(
            f"distribution: {report.distribution}; runs executed {report.runs_executed}, reused "
            f"{report.runs_reused}; {report.seconds:.1f}s; reports: {md}, {js}",
            highlight=False,
        )
        for e in loaded.errors:
            skipped_row(e)
    if report.ok or allow_failures:
        raise typer.Exit(EXIT_OK)
    only_infra = all(
        all(p.kind is ProblemKind.INFRA_ERROR for p in tr.problems) for tr in report.tasks if not tr.ok
    )
    raise typer.Exit(EXIT_INFRA if only_infra else EXIT_UNRESOLVED)
