"""``validation_report.md``: the summary a dataset publisher attaches to a release."""

from __future__ import annotations

from pathlib import Path

from ..validate import ValidationReport

_SIGNALS = {
    "test-driven": "tests decide the reward",
    "does-not-build": "buggy code does not import/compile: the agent must fix that first",
    "fallback": "script verifier, no per-test grading",
    "timeout": "a run hit its time limit",
    "broken": "gold does not resolve",
    "infra": "the machine failed; rerun",
}


def _cell(text: str) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")


def _leak_section(report: ValidationReport) -> list[str]:
    """Every leak-screen finding, with its level, reason and evidence (none when nothing was found)."""
    found = [(tr, h) for tr in report.tasks for h in tr.leaks]
    if not found:
        return []
    per_level: dict[str, int] = {}
    for tr in report.tasks:
        per_level[tr.leak_level.value] = per_level.get(tr.leak_level.value, 0) + 1
    counts = ", ".join(f"{k} {per_level[k]}" for k in ("leak", "hint", "none") if k in per_level)
    lines = [
        "",
        "## Leak screen",
        "",
        f"Tasks per level: {counts}. `leak`: the prompt tells where the fix goes or gives it away; `hint`: "
        "only in quoted error output the failing tests show anyway; `none`: a name the agent already has "
        "(an entry point the failing tests call, the workspace's only function or module).",
        "",
        "| task | level | kind | symbol | file | reason | evidence |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for tr, h in found:
        lines.append(
            f"| {tr.task_id} | {h.level.value} | {h.kind} | `{_cell(h.symbol)[:120]}` | {_cell(h.file)} | "
            f"{_cell(h.reason)} | {_cell(h.evidence)[:200]} |"
        )
    return lines


def to_markdown(report: ValidationReport) -> str:
    """The report as markdown: summary, distribution, one row per task, per-test matrix for failures."""
    n = len(report.tasks)
    lines = [
        "# Validation report",
        "",
        f"- dataset: `{report.dataset}` ({report.format})",
        f"- created: {report.created}; every check run {report.repeat} time(s)",
        f"- tasks: {n}; keep the contract: **{report.passed}**; break it: **{report.failed}**",
        f"- runs: {report.runs_executed} executed, {report.runs_reused} reused from the ledger; "
        f"wall time {report.seconds:.1f} s",
        "",
        "Contract: the buggy code fails exactly `fail_to_pass` and passes `pass_to_pass`; the gold patch "
        "passes both; every check is repeated and must agree; an empty workspace and a no-op candidate earn "
        "nothing; the prompt does not tell where the fix goes (naming the function the failing tests call is "
        "the symptom, not a leak).",
        "",
        "## Reward-signal distribution",
        "",
        "| class | tasks | share | meaning |",
        "| --- | ---: | ---: | --- |",
    ]
    for cls, count in sorted(report.distribution.items(), key=lambda kv: -kv[1]):
        share = f"{100 * count / n:.0f}%" if n else "-"
        lines.append(f"| {cls} | {count} | {share} | {_SIGNALS.get(cls, '')} |")
    if report.canary_coverage:
        cov = ", ".join(f"{k} {v}" for k, v in sorted(report.canary_coverage.items()))
        lines += [
            "",
            f"Canary coverage (does the test command run the harness's always-failing canary test, so "
            f"that forged or tampered reports are caught?): {cov}.",
        ]
    lines += [
        "",
        "## Tasks",
        "",
        "| task | language | result | signal | canary | F2P derived | problems |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for tr in report.tasks:
        result = "ok" if tr.ok else "**broken**"
        probs = "; ".join(f"{p.kind.value}: {p.message}" for p in tr.problems) or "-"
        lines.append(
            f"| {tr.task_id} | {tr.language} | {result} | {tr.signal.value} | {tr.canary} | "
            f"{len(tr.derived_fail_to_pass)} | {_cell(probs)[:400]} |"
        )
    lines += _leak_section(report)
    if report.unreadable_rows:
        lines += ["", "## Rows that could not be read", ""]
        lines += [f"- {_cell(r)}" for r in report.unreadable_rows]
    broken = [tr for tr in report.tasks if not tr.ok]
    if broken:
        lines += ["", "## What broke, per test", ""]
        for tr in broken:
            lines += [f"### {tr.task_id}", ""]
            for p in tr.problems:
                tests = (
                    f" ({', '.join(p.tests[:20])}{' ...' if len(p.tests) > 20 else ''})" if p.tests else ""
                )
                lines.append(f"- **{p.kind.value}**: {_cell(p.message)}{_cell(tests)}")
            runs = [r for r in tr.runs if r.outcomes]
            ids = sorted({t for r in runs for t in r.outcomes})
            if runs and ids:
                head = [f"{r.candidate}#{r.repeat}" for r in runs]
                lines += ["", "| test | " + " | ".join(head) + " |", "| --- |" + " --- |" * len(head)]
                for t in ids[:200]:
                    cells = [r.outcomes[t].value if t in r.outcomes else "missing" for r in runs]
                    lines.append(f"| {_cell(t)} | " + " | ".join(cells) + " |")
            lines.append("")
    return "\n".join(lines) + "\n"


def write_reports(report: ValidationReport, out_dir: Path) -> tuple[Path, Path]:
    """Write ``validation_report.md`` and ``validation_report.json`` into ``out_dir``."""
    out_dir.mkdir(parents=True, exist_ok=True)
    md = out_dir / "validation_report.md"
    js = out_dir / "validation_report.json"
    md.write_text(to_markdown(report), encoding="utf-8")
    js.write_text(report.model_dump_json(indent=2) + "\n", encoding="utf-8")
    return md, js
