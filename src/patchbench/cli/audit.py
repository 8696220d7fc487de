"""``patchbench audit``: lint a dataset's verifier scripts and probe them with candidates that fix nothing."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from ..api import load, select
from ..audit import audit as run_audit
from ..audit import write_reports
from ..sandbox import get_sandbox
from ._common import EXIT_OK, EXIT_UNRESOLVED, err, handle_errors, out, print_json
from .tasks import DatasetArg, FormatOpt, JsonOpt


@handle_errors
def audit(
    dataset: DatasetArg,
    task: Annotated[
        list[str] | None, typer.Option("--task", "-t", help="Task id (repeatable); default all.")
    ] = None,
    report_dir: Annotated[Path, typer.Option("--report-dir", help="Where audit_report.md/.json go.")] = Path(
        "."
    ),
    probes: Annotated[
        bool,
        typer.Option(
            "--probes/--no-probes", help="Run the probe candidates (sandboxed runs); off: lint only."
        ),
    ] = True,
    jobs: Annotated[int, typer.Option("--jobs", "-j", help="Probe runs in parallel (default: cores).")] = 0,
    sandbox: Annotated[
        str, typer.Option("--sandbox", help="bwrap (default) or none (NO isolation).")
    ] = "bwrap",
    format: FormatOpt = None,
    json: JsonOpt = False,
) -> None:
    """Audit script verifiers (tests/test.sh): static lint plus probes that must earn no reward.

    Writes audit_report.md and audit_report.json. Exit 0 when no task is flagged (no high-severity
    finding, no rewarded probe), 1 when some task is, 2 on bad input.
    """
    loaded = load(dataset, format=format)
    tasks = select(loaded.tasks, task or [])
    sb = get_sandbox(sandbox) if probes else sandbox
    with Progress(
        TextColumn("probing verifiers"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=err,
        transient=True,
        disable=json or not probes,
    ) as prog:
        bar = prog.add_task("runs", total=None)

        def progress(done: int, total: int) -> None:
            prog.update(bar, completed=done, total=total)

        report = run_audit(
            tasks,
            probes=probes,
            jobs=jobs or (os.cpu_count() or 1),
            sandbox=sb,
            dataset=str(dataset),
            format=loaded.format,
            errors=[str(e) for e in loaded.errors],
            on_progress=progress,
        )
    md, js = write_reports(report, report_dir)
    if json:
        print_json(report.model_dump(mode="json"))
    else:
        table = Table(title=f"audit of {dataset}: {report.flagged}/{len(report.tasks)} flagged")
        for col in ("task", "result", "findings", "probes rewarded", "why"):
            table.add_column(col, overflow="fold")
        for ta in report.tasks:
            if ta.skipped:
                table.add_row(ta.task_id, "[dim]skipped[/]", "", "", ta.skipped)
                continue
            codes = ", ".join(f"{f.code}:{f.line}" for f in ta.findings) or "-"
            rewarded = ", ".join(r.probe for r in ta.probes if r.rewarded) or "-"
            result = "[red]flagged[/]" if ta.flagged else "[green]clean[/]"
            table.add_row(ta.task_id, result, codes, rewarded, "; ".join(ta.reasons)[:300])
        out.print(table)
        out.print(
            f"flagged {report.flagged}, clean {report.clean}, skipped {report.skipped}; "
            f"{report.runs} probe run(s); {report.seconds:.1f}s; reports: {md}, {js}",
            highlight=False,
        )
        for e in loaded.errors:
            err.print(f"[yellow]skipped row:[/] {e}", highlight=False)
    raise typer.Exit(EXIT_OK if report.ok else EXIT_UNRESOLVED)
