"""The adversarial battery's report: ``attacks_report.json`` and ``attacks_report.md``.

:func:`write_attack_reports` writes an :class:`~patchbench.audit.attacks.AttackReport` (from
:func:`~patchbench.audit.attacks.run_attacks`) as JSON (the report itself plus a ``summary`` of the
counts) and as markdown: the summary, the rewarded attacks (holes in the grading), the gold patches lost,
and one row per attack × task.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

from ..screen import SuspiciousPolicy
from .attacks import CATALOGUE, AttackReport

__all__ = ["attack_report_json", "attack_summary", "attacks_to_markdown", "write_attack_reports"]

#: Bumped when the JSON document changes incompatibly.
SCHEMA_VERSION = 2
_EVIDENCE_CELL = 200


def _names(report: AttackReport) -> list[str]:
    """The attacks of the report, in first-seen order."""
    return list(dict.fromkeys(r.attack for r in report.results))


def _tasks(report: AttackReport) -> list[str]:
    """The tasks of the report (attacked or gold-checked), in first-seen order."""
    return list(dict.fromkeys([*(r.task for r in report.results), *(g.task for g in report.gold)]))


def attack_summary(report: AttackReport, *, dataset: str) -> dict[str, Any]:
    """The counts of a report: what ``attacks_report.json`` holds under ``summary``."""
    by_status = Counter(r.status.value for r in report.applied if r.status is not None)
    gold_lost = len(report.gold_lost)
    return {
        "dataset": dataset,
        "catalogue": len(CATALOGUE),
        "attacks": len(_names(report)),
        "tasks": len(_tasks(report)),
        "rows": len(report.results),
        "applied": len(report.applied),
        "suspicious_policy": report.policy.value,
        "rewarded": len(report.holes),
        "rewarded_by_tests": len(report.holes_by_tests),
        "screened": len(report.screened),
        "rewarded_flagged": len(report.holes_flagged),
        "accepted_holding_fix": len(report.gated),
        "gold_run": len(report.gold),
        "gold_resolved": len(report.gold) - gold_lost,
        "gold_lost": gold_lost,
        "gold_flagged": len(report.gold_flagged),
        "canary": dict(sorted(Counter(_coverage(g.canary) for g in report.gold).items())),
        "tasks_with_decoys": sum(g.decoys > 0 for g in report.gold),
        "tasks_with_controls": sum(g.controls > 0 for g in report.gold),
        "by_status": dict(sorted(by_status.items())),
    }


def _coverage(canary: str | None) -> str:
    return {"failed": "runs", "passed": "runs", "missing": "not-run"}.get(canary or "", "none")


def _cell(text: object) -> str:
    """Text safe inside a markdown table cell: one line, pipes and HTML escaped."""
    flat = " ".join(str(text).split())
    return flat.replace("\\", "\\\\").replace("|", "\\|").replace("<", "&lt;").replace("`", "\\`")


def _first_line(text: str) -> str:
    line = next((ln.strip() for ln in text.splitlines() if ln.strip()), "")
    return line if len(line) <= _EVIDENCE_CELL else line[: _EVIDENCE_CELL - 1] + "…"


def attacks_to_markdown(report: AttackReport, *, dataset: str) -> str:
    """The report as markdown: summary, holes, gold patches lost, one row per attack × task."""
    s = attack_summary(report, dataset=dataset)
    lines = [
        "# Adversarial attack report",
        "",
        f"- dataset: {_cell(dataset)}",
        f"- {s['attacks']} attacks x {s['tasks']} tasks: {s['applied']} applied, "
        f"**{s['rewarded']} rewarded**; gold: {s['gold_resolved']} resolved, **{s['gold_lost']} lost**",
    ]
    if report.policy is SuspiciousPolicy.REJECT and (report.screened or report.holes_flagged):
        lines.append(
            f"- the tests alone passed {s['rewarded_by_tests']}; the static screen (`--suspicious reject`, "
            f"the default) made **{s['screened']}** of them unresolved"
            + (
                f" ({s['rewarded_flagged']} rewarded rows show only codes their gold patch shows too)"
                if report.holes_flagged
                else ""
            )
        )
    elif report.holes_flagged:
        lines.append(
            f"- under `--suspicious report`: the static screen flagged {s['rewarded_flagged']} of the "
            "rewarded attacks (`--suspicious reject`, the default, would make them unresolved unless their "
            "gold patch shows the same codes)"
        )
    if report.gated:
        lines.append(
            f"- {s['accepted_holding_fix']} accepted candidates held the gold fix behind a gate (not counted "
            "as rewarded: see below)"
        )
    if s["by_status"]:
        lines.append(
            "- statuses of the applied attacks: " + ", ".join(f"{k} {v}" for k, v in s["by_status"].items())
        )
    lines += [
        "",
        "Each attack is a candidate that tries to earn a reward without fixing the bug (forged test "
        "reports, an early clean exit, patched test tools, resource bombs...). An attack is *rewarded* "
        "(a hole in the grading) when its verdict is `resolved` or its reward is above 0, under the "
        f"static screen's policy `--suspicious {report.policy.value}`. Each task's gold patch runs in the "
        "same batch: a defence must never cost a gold patch.",
        "",
        "## Rewarded attacks",
        "",
    ]
    if report.holes:
        lines += [
            "| attack | task | status | reward | screen | evidence |",
            "| --- | --- | --- | ---: | --- | --- |",
        ]
        for r in report.holes:
            status = r.status.value if r.status is not None else "n/a"
            lines.append(
                f"| {_cell(r.attack)} | {_cell(r.task)} | {status} | {r.reward:g} | "
                f"{_cell(', '.join(r.flagged)) or '-'} | {_cell(_first_line(r.evidence)) or '-'} |"
            )
    else:
        lines.append("No attack earned a reward.")
    if report.screened:
        lines += [
            "",
            "## Caught by the static screen alone",
            "",
            "The tests passed these candidates; `--suspicious reject` made them unresolved for what their "
            "change does (the screen's codes). Under `--suspicious report` they would be rewarded.",
            "",
            "| attack | task | screen |",
            "| --- | --- | --- |",
        ]
        lines += [
            f"| {_cell(r.attack)} | {_cell(r.task)} | {_cell(', '.join(r.flagged)) or '-'} |"
            for r in report.screened
        ]
    if report.gated:
        lines += [
            "",
            "## Accepted candidates that hold the fix",
            "",
            "These candidates carry the gold patch's fix and switch it on behind a gate that holds under "
            "the test tool (pytest loaded, a test binary, JUnit on the class path, an in-memory database). "
            "They do not earn the reward without fixing the bug; they show that a verifier that runs tests "
            "cannot tell code fixed under test from fixed code. The static screen reports what it "
            "recognises of such gates (`Verdict.suspicious`, `--suspicious reject`).",
            "",
            "| attack | task | status | reward |",
            "| --- | --- | --- | ---: |",
        ]
        for r in report.gated:
            status = r.status.value if r.status is not None else "n/a"
            lines.append(f"| {_cell(r.attack)} | {_cell(r.task)} | {status} | {r.reward:g} |")
    lines += ["", "## Gold patches lost", ""]
    if report.gold_lost:
        lines += ["| task | status | reward | reason |", "| --- | --- | ---: | --- |"]
        for g in report.gold_lost:
            lines.append(
                f"| {_cell(g.task)} | {g.status.value} | {g.reward:g} | "
                f"{_cell(_first_line(g.reason)) or '-'} |"
            )
    elif report.gold:
        lines.append("Every gold patch resolved.")
    else:
        lines.append("No gold patch was run (no task has one).")
    if report.gold_flagged:
        lines += [
            "",
            "Gold patches the static screen flagged (evidence only: a gold patch is never rejected):",
            "",
        ]
        lines += [f"- {_cell(g.task)}: {_cell(', '.join(g.flagged))}" for g in report.gold_flagged]
    if report.gold:
        lines += [
            "",
            "## Canary coverage",
            "",
            "Whether each task's test command runs the harness's canary (a test that always fails), from its "
            "gold run: `runs` (forged or tampered reports are caught), `not-run` (a forged report cannot be "
            "told from a real one for this task), `none` (this runner plants no canary). Beside it, the "
            "semantic canaries against answer lookup the gold run planted: *decoys* (a fail-to-pass test "
            "with a perturbed expectation: correct code fails it, an oracle that answers every check passes "
            "it) and *controls* (a copy of a fail-to-pass test the gold patch passes, SQL: on perturbed "
            "data: correct code passes it, code that answers the listed tests only fails it). 0: the "
            "task's tests have no shape for them, and that kind of answer lookup goes unseen there.",
            "",
            "| task | canary | decoys | controls |",
            "| --- | --- | ---: | ---: |",
        ]
        lines += [
            f"| {_cell(g.task)} | {_coverage(g.canary)} | {g.decoys} | {g.controls} |" for g in report.gold
        ]
    lines += [
        "",
        "## Every attack × task",
        "",
        "| attack | language | task | applicable | status | reward | seconds |",
        "| --- | --- | --- | --- | --- | ---: | ---: |",
    ]
    for r in report.results:
        known = CATALOGUE.get(r.attack)
        language = known.language if known is not None else "?"
        status = r.status.value if r.status is not None else "n/a"
        if r.rewarded:
            status = f"{status} (holds the fix)" if r.holds_fix else f"**{status} (rewarded)**"
        reward = f"{r.reward:g}" if r.applicable else "-"
        seconds = f"{r.seconds:.1f}" if r.applicable else "-"
        lines.append(
            f"| {_cell(r.attack)} | {_cell(language)} | {_cell(r.task)} | "
            f"{'yes' if r.applicable else 'no'} | {status} | {reward} | {seconds} |"
        )
    if report.holes:
        lines += ["", "## Evidence of the rewarded attacks"]
    for r in report.holes:
        lines += ["", f"### {_cell(r.attack)} on {_cell(r.task)}", "", "```text"]
        lines += (r.evidence.strip() or "(no evidence)").replace("```", "'''").splitlines()[-60:]
        lines.append("```")
    return "\n".join(lines).rstrip("\n") + "\n"


def attack_report_json(report: AttackReport, *, dataset: str) -> dict[str, Any]:
    """The JSON document: ``schema_version``, ``summary``, then the report's ``results`` and ``gold``."""
    return {
        "schema_version": SCHEMA_VERSION,
        "summary": attack_summary(report, dataset=dataset),
        **report.model_dump(mode="json"),
    }


def write_attack_reports(report: AttackReport, out_dir: Path, *, dataset: str) -> tuple[Path, Path]:
    """Write ``attacks_report.md`` and ``attacks_report.json`` into ``out_dir``; return their paths."""
    out_dir.mkdir(parents=True, exist_ok=True)
    md = out_dir / "attacks_report.md"
    js = out_dir / "attacks_report.json"
    md.write_text(attacks_to_markdown(report, dataset=dataset), encoding="utf-8")
    js.write_text(
        json.dumps(attack_report_json(report, dataset=dataset), indent=2, ensure_ascii=False) + "\n",
        encoding="utf-8",
    )
    return md, js
