"""``patchbench audit``: lint a dataset's verifier scripts, probe them with candidates that fix nothing and,
with ``--attacks``, run the adversarial battery (:mod:`patchbench.audit.attacks`) against every task."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table
from rich.text import Text

from ..api import load, select
from ..audit import audit as run_audit
from ..audit import write_reports
from ..audit.attack_report import attack_report_json, write_attack_reports
from ..audit.attacks import CATALOGUE, AttackReport, run_attacks
from ..errors import InputError
from ..sandbox import Sandbox, get_sandbox
from ..screen import SuspiciousPolicy
from ..task import Task
from ._common import EXIT_OK, EXIT_UNRESOLVED, err, handle_errors, out, print_json, skipped_row
from .tasks import FormatOpt, JsonOpt, ReposOpt

#: Optional here (unlike the other commands) so that ``--list-attacks`` needs no dataset.
AuditDatasetArg = Annotated[
    str | None,
    typer.Argument(
        help="Dataset file or directory; 'builtin' for the built-in dataset. Required unless --list-attacks.",
        show_default=False,
    ),
]


@contextmanager
def _progress(label: str, *, disable: bool) -> Iterator[Callable[[int, int], None]]:
    """A transient progress bar on stderr (done/total, elapsed); yields the ``on_progress`` callback."""
    with Progress(
        TextColumn(label),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=err,
        transient=True,
        disable=disable,
    ) as prog:
        bar = prog.add_task("runs", total=None)

        def progress(done: int, total: int) -> None:
            prog.update(bar, completed=done, total=total)

        yield progress


def _attack_names(names: Sequence[str]) -> list[str]:
    """The ``--attack`` names, deduplicated in order; an unknown one is a bad-input error."""
    unknown = [n for n in names if n not in CATALOGUE]
    if unknown:
        raise InputError(
            f"unknown attack {', '.join(unknown)} (known: {', '.join(CATALOGUE)}; see --list-attacks)"
        )
    return list(dict.fromkeys(names))


def _capped(task: Task, limit: float | None) -> Task:
    """The task with its test time limit capped at ``limit`` seconds (unchanged when None)."""
    if limit is None or task.test.time_limit_s <= limit:
        return task
    return task.model_copy(update={"test": task.test.model_copy(update={"time_limit_s": limit})})


def _list_attacks(json: bool) -> None:
    rows = [
        {"name": a.name, "language": a.language, "description": a.description} for a in CATALOGUE.values()
    ]
    if json:
        print_json({"attacks": rows})
        return
    table = Table(title=f"{len(rows)} attack(s)")
    for col in ("name", "language", "description"):
        table.add_column(col, overflow="fold")
    for r in rows:
        table.add_row(Text(r["name"]), Text(r["language"]), Text(r["description"]))
    out.print(table)


def _print_attacks(report: AttackReport, md: Path, js: Path) -> None:
    holes, lost = report.holes, report.gold_lost
    if holes:
        table = Table(title=f"{len(holes)} attack(s) rewarded")
        for col in ("attack", "task", "status", "reward", "screen", "evidence"):
            table.add_column(col, overflow="fold")
        for r in holes:
            first = next((ln for ln in r.evidence.splitlines() if ln.strip()), "")
            status = r.status.value if r.status is not None else "n/a"
            table.add_row(
                Text(r.attack),
                Text(r.task),
                status,
                f"{r.reward:g}",
                Text(", ".join(r.flagged) or "-"),
                Text(first[:300]),
            )
        out.print(table)
    if lost:
        table = Table(title=f"{len(lost)} gold patch(es) lost")
        for col in ("task", "status", "reward", "reason"):
            table.add_column(col, overflow="fold")
        for g in lost:
            table.add_row(Text(g.task), g.status.value, f"{g.reward:g}", Text(g.reason[:300]))
        out.print(table)
    if not holes and not lost:
        held = f" ({len(report.gated)} accepted that hold the gold fix behind a gate)" if report.gated else ""
        out.print(f"[green]attacks: no attack earned a reward without the fix{held}; no gold patch lost[/]")
    attacks = len(dict.fromkeys(r.attack for r in report.results))
    tasks = len(dict.fromkeys([*(r.task for r in report.results), *(g.task for g in report.gold)]))
    screened = (
        f"; the tests alone passed {len(report.holes_by_tests)}, the static screen made "
        f"{len(report.screened)} unresolved"
        if report.policy is SuspiciousPolicy.REJECT
        else f"; the static screen flagged {len(report.holes_flagged)} of them"
    )
    out.print(
        f"attacks: {attacks} attack(s) x {tasks} task(s): {len(report.applied)} applied, "
        f"{len(holes)} rewarded under --suspicious {report.policy.value}"
        + (f" ({len(report.gated)} accepted holding the fix)" if report.gated else "")
        + screened
        + f"; gold: {len(report.gold) - len(lost)} resolved, {len(lost)} lost; reports: {md}, {js}",
        highlight=False,
    )


@handle_errors
def audit(
    dataset: AuditDatasetArg = None,
    task: Annotated[
        list[str] | None, typer.Option("--task", "-t", help="Task id (repeatable); default all.")
    ] = None,
    report_dir: Annotated[
        Path, typer.Option("--report-dir", help="Where audit_report.md/.json (and attacks_report.*) go.")
    ] = Path("."),
    probes: Annotated[
        bool,
        typer.Option(
            "--probes/--no-probes", help="Run the probe candidates (sandboxed runs); off: lint only."
        ),
    ] = True,
    attacks: Annotated[
        bool,
        typer.Option(
            "--attacks",
            help="Also run the adversarial battery against every task (and each gold patch); "
            "writes attacks_report.md/.json.",
        ),
    ] = False,
    attack: Annotated[
        list[str] | None,
        typer.Option("--attack", help="Run only this attack of the battery (repeatable; implies --attacks)."),
    ] = None,
    time_limit: Annotated[
        float | None,
        typer.Option(
            "--time-limit",
            min=1.0,
            help="Cap each task's test time limit at SECONDS for the battery (attacks and gold runs).",
        ),
    ] = None,
    list_attacks: Annotated[
        bool, typer.Option("--list-attacks", help="Print the attack catalogue and exit (no DATASET needed).")
    ] = False,
    suspicious: Annotated[
        SuspiciousPolicy,
        typer.Option(
            "--suspicious",
            help="The battery's grading of static-screen findings, as run's: reject (default) or report "
            "(what the tests alone reward).",
        ),
    ] = (SuspiciousPolicy.REJECT),
    jobs: Annotated[int, typer.Option("--jobs", "-j", help="Runs in parallel (default: cores).")] = 0,
    sandbox: Annotated[
        str, typer.Option("--sandbox", help="bwrap (default) or none (NO isolation).")
    ] = "bwrap",
    repos: ReposOpt = None,
    format: FormatOpt = None,
    json: JsonOpt = False,
) -> None:
    """Audit script verifiers (tests/test.sh): static lint plus probes that must earn no reward.

    Writes audit_report.md and audit_report.json. With --attacks, also runs the adversarial battery
    (candidates that try to earn a reward without fixing the bug) against every task, with each task's
    gold patch, and writes attacks_report.md and attacks_report.json. Exit 0 when no task is flagged (no
    high-severity finding, no rewarded probe), no attack is rewarded and no gold patch is lost; 1
    otherwise; 2 on bad input.
    """
    if list_attacks:
        _list_attacks(json)
        raise typer.Exit(EXIT_OK)
    if dataset is None:
        raise InputError("missing argument DATASET (only --list-attacks runs without one)")
    names = _attack_names(attack or [])
    battery = attacks or bool(names)
    if time_limit is not None and not battery:
        raise InputError("--time-limit applies to the attack battery: add --attacks")
    loaded = load(dataset, format=format)
    tasks = select(loaded.tasks, task or [])
    sb: Sandbox | str = get_sandbox(sandbox) if probes or battery else sandbox
    n_jobs = jobs or (os.cpu_count() or 1)
    with _progress("probing verifiers", disable=json or not probes) as progress:
        report = run_audit(
            tasks,
            probes=probes,
            jobs=n_jobs,
            sandbox=sb,
            dataset=str(dataset),
            format=loaded.format,
            errors=[str(e) for e in loaded.errors],
            repos=repos or (),
            on_progress=progress,
        )
    md, js = write_reports(report, report_dir)
    attack_report: AttackReport | None = None
    attack_paths: tuple[Path, Path] | None = None
    if battery:
        with _progress("attacking the grading", disable=json) as progress:
            attack_report = run_attacks(
                [_capped(t, time_limit) for t in tasks],
                jobs=n_jobs,
                sandbox=sb,
                attacks=names or None,
                repos=repos or (),
                on_progress=progress,
                suspicious_policy=suspicious,
            )
        attack_paths = write_attack_reports(attack_report, report_dir, dataset=str(dataset))
    if json:
        doc: dict[str, Any] = report.model_dump(mode="json")
        if attack_report is not None:
            doc = {"audit": doc, "attacks": attack_report_json(attack_report, dataset=str(dataset))}
        print_json(doc)
    else:
        table = Table(title=f"audit of {dataset}: {report.flagged}/{len(report.tasks)} flagged")
        for col in ("task", "result", "findings", "probes rewarded", "why"):
            table.add_column(col, overflow="fold")
        for ta in report.tasks:
            if ta.skipped and attack_report is not None:
                continue  # with the battery, tasks without a script verifier are summed up below
            if ta.skipped:
                table.add_row(ta.task_id, "[dim]skipped[/]", "", "", ta.skipped)
                continue
            codes = ", ".join(f"{f.code}:{f.line}" for f in ta.findings) or "-"
            rewarded = ", ".join(r.probe for r in ta.probes if r.rewarded) or "-"
            result = "[red]flagged[/]" if ta.flagged else "[green]clean[/]"
            table.add_row(ta.task_id, result, codes, rewarded, "; ".join(ta.reasons)[:300])
        if table.row_count:
            out.print(table)
        out.print(
            f"verifiers: flagged {report.flagged}, clean {report.clean}, skipped {report.skipped}; "
            f"{report.runs} probe run(s); {report.seconds:.1f}s; reports: {md}, {js}",
            highlight=False,
        )
        if attack_report is not None and attack_paths is not None:
            _print_attacks(attack_report, *attack_paths)
        for e in loaded.errors:
            skipped_row(e)
    ok = report.ok and (attack_report is None or not (attack_report.holes or attack_report.gold_lost))
    raise typer.Exit(EXIT_OK if ok else EXIT_UNRESOLVED)
