"""``patchbench tasks`` and ``patchbench show``: list a dataset, show one task."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table

from ..api import load, select
from ..runners import choose_runner
from ..task import Task
from ._common import escape, handle_errors, out, print_json, skipped_row

DatasetArg = Annotated[
    str, typer.Argument(help="Dataset file or directory; 'builtin' for the built-in dataset.")
]
FormatOpt = Annotated[str | None, typer.Option("--format", help="Skip detection and read this format.")]
JsonOpt = Annotated[
    bool, typer.Option("--json", help="Print JSON for machines (instead of the human output).")
]
ReposOpt = Annotated[
    list[Path] | None,
    typer.Option(
        "--repos",
        help="Local repository cache directory for repository tasks (repeatable; also $PATCHBENCH_REPOS).",
    ),
]


def summary(t: Task) -> dict[str, Any]:
    """The one-line facts about a task, for tables and JSON."""
    return {
        "id": t.id,
        "language": t.language,
        "title": t.title,
        "category": t.metadata.get("category"),
        "format": t.source_format,
        "protocol": "script"
        if t.verifier and t.verifier.kind.value == "script"
        else choose_runner(t.test).name,
        "fail_to_pass": len(t.fail_to_pass),
        "pass_to_pass": len(t.pass_to_pass),
        "has_gold": bool(t.gold_patch),
    }


@handle_errors
def tasks(dataset: DatasetArg = "builtin", format: FormatOpt = None, json: JsonOpt = False) -> None:
    """List the tasks of a dataset (and the rows that could not be read)."""
    loaded = load(dataset, format=format)
    rows = [summary(t) for t in loaded.tasks]
    if json:
        print_json(
            {
                "format": loaded.format,
                "source": loaded.source,
                "tasks": rows,
                "errors": [str(e) for e in loaded.errors],
            }
        )
        return
    table = Table(title=f"{loaded.source} ({loaded.format}): {len(rows)} task(s)")
    for col in ("id", "language", "category", "protocol", "F2P", "P2P", "gold", "title"):
        table.add_column(col, overflow="fold")
    for r in rows:
        table.add_row(
            escape(r["id"]),
            r["language"],
            str(r["category"] or ""),
            r["protocol"],
            str(r["fail_to_pass"]),
            str(r["pass_to_pass"]),
            "yes" if r["has_gold"] else "no",
            escape(r["title"]),
        )
    out.print(table)
    for e in loaded.errors:
        skipped_row(e)


@handle_errors
def show(
    dataset: DatasetArg,
    task_id: Annotated[str, typer.Argument(help="The task id.")],
    format: FormatOpt = None,
    json: JsonOpt = False,
) -> None:
    """Show one task: prompt, files, test command, F2P/P2P, gold patch."""
    task = select(load(dataset, format=format).tasks, [task_id])[0]
    if json:
        print_json(task.model_dump(mode="json"))
        return
    s = summary(task)
    out.rule(f"[bold]{task.id}[/]  {task.title}")
    out.print(
        f"language: {task.language}   format: {task.source_format}   protocol: {s['protocol']}   "
        f"time limit: {task.test.time_limit_s:g}s"
    )
    for c in task.test.commands:
        out.print(f"test command: {c.display()}", highlight=False)
    out.print(f"workspace: {', '.join(f.path for f in task.workspace) or '(empty)'}", highlight=False)
    out.print(f"hidden tests: {', '.join(f.path for f in task.hidden_tests) or '(none)'}", highlight=False)
    out.print("fail_to_pass:", highlight=False)
    for i in task.fail_to_pass:
        out.print(f"  {i}", highlight=False)
    out.print("pass_to_pass:", highlight=False)
    for i in task.pass_to_pass:
        out.print(f"  {i}", highlight=False)
    extra = {k: v for k, v in task.metadata.items() if k != "title"}
    if extra:
        out.print(f"metadata: {extra}", highlight=False)
    out.rule("prompt")
    out.print(task.prompt, highlight=False, markup=False)
    if task.gold_patch:
        out.rule("gold patch")
        out.print(task.gold_patch, highlight=False, markup=False)
