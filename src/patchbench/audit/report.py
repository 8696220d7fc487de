"""The audit of a dataset's verifiers: lint plus probes per task, as ``audit_report.json`` and ``.md``.

A task is *flagged* when its verifier script has a ``high`` lint finding or a probe was rewarded; medium
and low findings are reported without flagging. Tasks whose reward does not come from a script verifier
(patchbench grades them per test) are listed as skipped.
"""

from __future__ import annotations

import posixpath
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from pydantic import BaseModel, Field

from ..sandbox import Sandbox
from ..task import Task
from .lint import CODES, Finding, Severity, lint_script
from .probes import PROBES, PlannedProbe, ProbeResult, is_script_task, plan_probes, run_planned

__all__ = ["AuditReport", "TaskAudit", "audit", "script_text", "to_markdown", "write_reports"]


class TaskAudit(BaseModel):
    """Everything the audit found about one task.

    Attributes:
        task_id: the task.
        language: its language.
        script: the verifier script's path in the task (``tests/test.sh``); empty when skipped.
        flagged: a high finding or a rewarded probe.
        reasons: one line per cause of the flag.
        findings: lint findings, in line order.
        probes: one result per probe (skipped ones included).
        skipped: why the task was not audited, when it was not.
    """

    task_id: str
    language: str = ""
    script: str = ""
    flagged: bool = False
    reasons: list[str] = Field(default_factory=list)
    findings: list[Finding] = Field(default_factory=list)
    probes: list[ProbeResult] = Field(default_factory=list)
    skipped: str | None = None


class AuditReport(BaseModel):
    """The audit of a dataset (``audit_report.json``).

    Attributes:
        dataset / format: what was audited.
        created: when.
        probes: whether the dynamic probes ran.
        tasks: one entry per task.
        flagged / clean / skipped: task counts (skipped: no script verifier).
        findings_by_code: lint code → number of tasks with that finding.
        probes_rewarded: probe → number of tasks whose verifier rewarded it.
        runs: probe runs made.
        errors: dataset rows that could not be read.
        seconds: wall time.
    """

    schema_version: int = 1
    dataset: str = ""
    format: str = ""
    created: str = ""
    probes: bool = True
    tasks: list[TaskAudit] = Field(default_factory=list)
    flagged: int = 0
    clean: int = 0
    skipped: int = 0
    findings_by_code: dict[str, int] = Field(default_factory=dict)
    probes_rewarded: dict[str, int] = Field(default_factory=dict)
    runs: int = 0
    errors: list[str] = Field(default_factory=list)
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        """True when no task is flagged."""
        return self.flagged == 0


def script_text(task: Task) -> tuple[str, str] | None:
    """The verifier script of a script-verifier task: ``(path in the task, text)``; None when missing."""
    if not is_script_task(task):
        return None
    assert task.verifier is not None
    script = task.verifier.script
    for f in task.extra_files:
        if f.path == script:
            return script, f.data().decode("utf-8", errors="replace")
    name = posixpath.basename(script)
    rel = posixpath.relpath(script, "tests") if script.startswith("tests/") else name
    for f in task.hidden_tests:
        if f.path in (rel, name):
            return script, f.data().decode("utf-8", errors="replace")
    return None


def _task_audit(task: Task, results: list[ProbeResult]) -> TaskAudit:
    ta = TaskAudit(task_id=task.id, language=task.language)
    found = script_text(task)
    if not is_script_task(task):
        ta.skipped = "not a script verifier: patchbench grades this task per test (see `patchbench validate`)"
        return ta
    if found is None:
        ta.skipped = "the task names a verifier script it does not hold"
        return ta
    ta.script, text = found
    try:
        ta.findings = lint_script(text)
    except Exception as e:  # a lint bug must not stop a batch: report it on the task
        ta.findings = [
            Finding(
                code="unparseable",
                message=f"the lint failed on this script ({type(e).__name__}: {e}); please report it",
                line=1,
                evidence="",
                severity=Severity.MEDIUM,
            )
        ]
    ta.probes = results
    for f in ta.findings:
        if f.severity is Severity.HIGH:
            ta.reasons.append(f"{f.code} (line {f.line})")
    for r in results:
        if r.rewarded:
            status = r.status.value if r.status is not None else "?"
            ta.reasons.append(f"probe {r.probe} rewarded ({status}, reward {r.reward:g})")
    ta.flagged = bool(ta.reasons)
    return ta


def audit(
    tasks: Sequence[Task],
    *,
    probes: bool = True,
    jobs: int = 1,
    sandbox: Sandbox | str = "bwrap",
    cache_dir: Path | None = None,
    repos: Sequence[str | Path] = (),
    dataset: str = "",
    format: str = "",
    errors: Sequence[str] = (),
    on_progress: Callable[[int, int], None] | None = None,
) -> AuditReport:
    """Lint every task's verifier script and, with ``probes``, run the probes against it.

    Args:
        tasks: the tasks.
        probes: run the dynamic probes (sandboxed runs); without, lint only.
        jobs: probe runs in parallel.
        sandbox: the sandbox backend or its name.
        cache_dir: the environment cache.
        repos: local repository cache directories (repository tasks; see :mod:`patchbench.repos`).
        dataset / format / errors: for the report header (errors: rows the loader could not read).
        on_progress: called with (runs done, runs total) after each probe run.
    """
    t0 = time.monotonic()
    planned: list[PlannedProbe] = []
    if probes:
        for t in tasks:
            if script_text(t) is not None:
                planned.extend(plan_probes(t))
    results, runs = (
        run_planned(
            planned, jobs=jobs, sandbox=sandbox, cache_dir=cache_dir, repos=repos, on_done=on_progress
        )
        if planned
        else ([], 0)
    )
    per_task: dict[str, list[ProbeResult]] = {}
    for p, r in zip(planned, results, strict=True):
        per_task.setdefault(p.task.id, []).append(r)
    report = AuditReport(
        dataset=dataset,
        format=format,
        created=time.strftime("%Y-%m-%dT%H:%M:%S"),
        probes=probes,
        runs=runs,
        errors=list(errors),
    )
    for t in tasks:
        ta = _task_audit(t, per_task.get(t.id, []))
        report.tasks.append(ta)
        if ta.skipped:
            report.skipped += 1
        elif ta.flagged:
            report.flagged += 1
        else:
            report.clean += 1
        for code in sorted({f.code for f in ta.findings}):
            report.findings_by_code[code] = report.findings_by_code.get(code, 0) + 1
        for r in ta.probes:
            if r.rewarded:
                report.probes_rewarded[r.probe] = report.probes_rewarded.get(r.probe, 0) + 1
    report.seconds = round(time.monotonic() - t0, 2)
    return report


# ------------------------------------------------------------------------------------------- markdown


def _cell(text: str) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")


def _code(text: str) -> str:
    t = " ".join(text.split())
    fence = "``" if "`" in t else "`"
    return f"{fence} {t} {fence}" if fence == "``" else f"`{t}`"


def to_markdown(report: AuditReport) -> str:
    """The report as markdown: summary, counts per code and probe, one row per task, details."""
    n = len(report.tasks)
    lines = [
        "# Verifier audit report",
        "",
        f"- dataset: `{report.dataset}` ({report.format})",
        f"- created: {report.created}; probes: {'run' if report.probes else 'not run (--no-probes)'}; "
        f"{report.runs} probe run(s); wall time {report.seconds:.1f} s",
        f"- tasks: {n}; flagged: **{report.flagged}**; clean: **{report.clean}**; "
        f"skipped (no script verifier): {report.skipped}",
        "",
        "A task is flagged when its verifier script has a high-severity lint finding or when a probe "
        "candidate that fixes nothing earns a reward. Lint reads `tests/test.sh` with a shell parser; "
        "probes run the real verifier on an empty workspace, the unmodified code, code replaced by empty "
        "files, code that writes the reward file itself, code that does not compile, and code that "
        "replaces the hidden tests when imported.",
        "",
    ]
    if report.errors:
        lines += ["## Rows that could not be read", ""]
        lines += [f"- {_cell(e)}" for e in report.errors]
        lines.append("")
    lines += ["## Lint findings", "", "| code | tasks | meaning |", "| --- | ---: | --- |"]
    for code, meaning in CODES.items():
        lines.append(f"| {code} | {report.findings_by_code.get(code, 0)} | {meaning} |")
    if report.probes:
        lines += ["", "## Probes", "", "| probe | tasks rewarded | candidate |", "| --- | ---: | --- |"]
        for probe, what in PROBES.items():
            lines.append(f"| {probe} | {report.probes_rewarded.get(probe, 0)} | {what} |")
    lines += [
        "",
        "## Tasks",
        "",
        "| task | result | high | medium | low | probes rewarded | why |",
        "| --- | --- | ---: | ---: | ---: | --- | --- |",
    ]
    for ta in report.tasks:
        if ta.skipped:
            lines.append(f"| {ta.task_id} | skipped | - | - | - | - | {_cell(ta.skipped)} |")
            continue
        count = {s: sum(f.severity is s for f in ta.findings) for s in Severity}
        rewarded = ", ".join(r.probe for r in ta.probes if r.rewarded) or "-"
        result = "**flagged**" if ta.flagged else "clean"
        lines.append(
            f"| {ta.task_id} | {result} | {count[Severity.HIGH]} | {count[Severity.MEDIUM]} | "
            f"{count[Severity.LOW]} | {rewarded} | {_cell('; '.join(ta.reasons) or '-')[:400]} |"
        )
    detailed = [ta for ta in report.tasks if not ta.skipped and (ta.findings or ta.flagged)]
    if detailed:
        lines += ["", "## Details", ""]
    for ta in detailed:
        lines.append(f"### {ta.task_id}{' (flagged)' if ta.flagged else ''}")
        if ta.findings:
            lines.append("")
        for f in ta.findings:
            lines.append(
                f"- **{f.code}** ({f.severity.value}, {ta.script} line {f.line}): {_cell(f.message)}  "
            )
            lines.append(f"  {_code(f.evidence)}")
        if ta.probes:
            lines += [
                "",
                "| probe | rewarded | status | reward | reason |",
                "| --- | --- | --- | ---: | --- |",
            ]
            for r in ta.probes:
                if r.skipped:
                    lines.append(f"| {r.probe} | - | skipped | - | {_cell(r.skipped)} |")
                    continue
                status = r.status.value if r.status is not None else "-"
                lines.append(
                    f"| {r.probe} | {'**yes**' if r.rewarded else 'no'} | {status} | {r.reward:g} | "
                    f"{_cell(r.reason or '-')[:300]} |"
                )
            for r in ta.probes:
                if r.rewarded:
                    lines += ["", f"Output of the rewarded `{r.probe}` probe (end):", "", "```text"]
                    lines += (r.output_tail.strip() or "(no output)").replace("```", "'''").splitlines()[-40:]
                    lines.append("```")
                    if r.config_files_blocked:
                        lines.append(
                            "patchbench's test-configuration guard removed "
                            + ", ".join(f"`{p}`" for p in r.config_files_blocked)
                            + " before the verifier ran; the reward came from the other files."
                        )
        lines.append("")
    return "\n".join(lines).rstrip("\n") + "\n"


def write_reports(report: AuditReport, out_dir: Path) -> tuple[Path, Path]:
    """Write ``audit_report.md`` and ``audit_report.json`` into ``out_dir``."""
    out_dir.mkdir(parents=True, exist_ok=True)
    md = out_dir / "audit_report.md"
    js = out_dir / "audit_report.json"
    md.write_text(to_markdown(report), encoding="utf-8")
    js.write_text(report.model_dump_json(indent=2) + "\n", encoding="utf-8")
    return md, js
