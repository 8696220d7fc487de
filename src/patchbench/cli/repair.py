"""``patchbench repair``: default-fail verifiers and repaired test files for Harbor datasets."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from ..api import load, select
from ..formats import get_format, write
from ..repair import repair_dataset, write_report
from ._common import EXIT_INFRA, EXIT_OK, err, handle_errors, out, print_json, skipped_row
from .tasks import DatasetArg, FormatOpt, JsonOpt


@handle_errors
def repair(
    dataset: DatasetArg,
    output: Annotated[
        Path,
        typer.Option("--output", "-o", help="Where the repaired dataset is written (file or directory)."),
    ],
    to: Annotated[
        str | None,
        typer.Option("--to", help="Output format (default: the input's, e.g. harbor-dir or harbor-parquet)."),
    ] = None,
    task: Annotated[
        list[str] | None, typer.Option("--task", "-t", help="Task id (repeatable); default all.")
    ] = None,
    report_dir: Annotated[Path, typer.Option("--report-dir", help="Where repair_report.md/.json go.")] = Path(
        "."
    ),
    collect: Annotated[
        bool,
        typer.Option(
            "--collect/--no-collect",
            help="Check that repaired test files are collected (pytest --collect-only in the sandbox); "
            "--no-collect only parses and compiles them.",
        ),
    ] = True,
    jobs: Annotated[
        int, typer.Option("--jobs", "-j", help="Tasks repaired in parallel (default: cores).")
    ] = 0,
    sandbox: Annotated[
        str, typer.Option("--sandbox", help="bwrap (default) or none (NO isolation) for the collect checks.")
    ] = "bwrap",
    format: FormatOpt = None,
    json: JsonOpt = False,
) -> None:
    """Give Harbor tasks a default-fail verifier (tests/test.sh, tests/test_state.py), repair their tests.

    Python single-file tasks (seed 000): LLM-written test files are repaired mechanically (markdown fences
    and prose, @pytest.main() decorators, non-ASCII bytes literals, typing.Enum, collections ABCs, missing
    imports); a task whose tests still cannot be collected falls back to mode B. Maven tasks (seed 003):
    mvn test without a pipe, more than zero tests required. Writes repair_report.md and repair_report.json.
    Exit 0 when the dataset was written, 2 on bad input, 3 when the collect check could not run for some
    task (machine fault; those tasks are written unchanged and listed in the report).
    """
    loaded = load(dataset, format=format)
    fmt = to or loaded.format
    get_format(fmt)  # an unknown --to is bad input before any work is done
    tasks = select(loaded.tasks, task or [])
    with Progress(
        TextColumn("repairing"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=err,
        transient=True,
        disable=json,
    ) as prog:
        bar = prog.add_task("tasks", total=len(tasks))

        def progress(done: int, total: int) -> None:
            prog.update(bar, completed=done, total=total)

        repaired, report = repair_dataset(
            tasks,
            collect=collect,
            sandbox=sandbox,
            jobs=jobs or (os.cpu_count() or 1),
            dataset=str(dataset),
            format=loaded.format,
            on_progress=progress,
        )
    write(repaired, output, fmt)
    md, js = write_report(report, report_dir)
    code = EXIT_INFRA if any(t.infra_error for t in report.tasks) else EXIT_OK
    if json:
        payload = report.model_dump(mode="json")
        payload["output"] = str(output)
        payload["output_format"] = fmt
        payload["fallback_tasks"] = report.fallback_tasks
        payload["skipped_rows"] = [str(e) for e in loaded.errors]
        print_json(payload)
        raise typer.Exit(code)
    table = Table(title=f"repair of {dataset}: {len(report.tasks)} task(s) -> {output} ({fmt})")
    for col in ("task", "template", "mode", "signal", "repairs", "unrepairable"):
        table.add_column(col, overflow="fold")
    for tr in report.tasks:
        table.add_row(
            tr.task_id,
            tr.template or "-",
            tr.mode or "-",
            tr.signal,
            str(len(tr.repairs)),
            ", ".join(tr.unrepairable) or (tr.error or "-"),
        )
    out.print(table)
    out.print(
        f"distribution (static): {report.distribution}; {report.repaired_files} test file(s) repaired, "
        f"{report.unrepairable_files} unrepairable; {report.seconds:.1f}s; reports: {md}, {js}",
        highlight=False,
    )
    for e in loaded.errors:
        skipped_row(e)
    for tr in report.tasks:
        if tr.infra_error:
            err.print(f"[red]not repaired:[/] {tr.task_id}: {tr.error}", highlight=False)
    raise typer.Exit(code)
