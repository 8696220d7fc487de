"""``patchbench audit --attacks``: the adversarial battery from the command line, and its reports."""

from __future__ import annotations

import importlib
import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import patchbench as pb
from patchbench.audit.attack_report import attacks_to_markdown, write_attack_reports
from patchbench.audit.attacks import CATALOGUE, AttackReport, AttackResult, GoldResult, plan_attacks
from patchbench.cli import app
from patchbench.screen import SuspiciousPolicy
from patchbench.verdict import Status

runner = CliRunner()
#: The module (``patchbench.cli.audit`` the attribute is the command function that shadows it).
audit_cli = importlib.import_module("patchbench.cli.audit")

_PY = "py-interval-touching-merge"
_JS = "js-lru-numeric-key-eviction"
#: Two Python attacks that exit at import and one harness attack that applies to every language.
ATTACKS = ("py-sys-exit-at-import", "py-os-exit-at-import", "diff-dotdot-path")
_ROW_HEAD = "| attack | language | task | applicable | status | reward | seconds |"


def invoke(*args: str) -> tuple[int, str, str]:
    r = runner.invoke(app, list(args))
    return r.exit_code, r.stdout, r.stderr


def _matrix_rows(md: str) -> list[list[str]]:
    """The cells of the one-row-per-attack-x-task table of attacks_report.md."""
    lines = md.splitlines()
    start = lines.index(_ROW_HEAD) + 2
    rows = []
    for line in lines[start:]:
        if not line.startswith("|"):
            break
        rows.append([c.strip() for c in line.strip("|").split(" | ")])
    return rows


# ------------------------------------------------------------------------------------- no runs at all


def test_list_attacks_needs_no_dataset() -> None:
    code, out, _ = invoke("audit", "--list-attacks", "--json")
    assert code == 0
    rows = json.loads(out)["attacks"]
    assert [r["name"] for r in rows] == list(CATALOGUE)
    assert all(r["language"] and r["description"] for r in rows)
    code, out, _ = invoke("audit", "--list-attacks")
    assert code == 0
    assert "py-sys-exit-at-import" in out and "diff-dotdot-path" in out


def test_unknown_attack_is_bad_input_naming_the_valid_ones(tmp_path: Path) -> None:
    code, out, errs = invoke("audit", "builtin", "--attack", "no-such-attack", "--report-dir", str(tmp_path))
    assert code == 2
    assert "unknown attack no-such-attack" in errs
    assert "py-sys-exit-at-import" in errs and "diff-dotdot-path" in errs
    assert out == "" and not (tmp_path / "attacks_report.json").exists()


def test_missing_dataset_and_time_limit_without_the_battery_are_bad_input(tmp_path: Path) -> None:
    code, _, errs = invoke("audit")
    assert code == 2 and "DATASET" in errs
    code, _, errs = invoke("audit", "builtin", "--no-probes", "--time-limit", "5")
    assert code == 2 and "--attacks" in errs
    code, _, _ = invoke("audit", "builtin", "--attacks", "--time-limit", "0")
    assert code == 2


def _hole_report() -> AttackReport:
    return AttackReport(
        results=(
            AttackResult(
                attack="py-sys-exit-at-import",
                task="t1",
                applicable=True,
                status=Status.RESOLVED,
                reward=1.0,
                rewarded=True,
                evidence="all tests passed | forged\n--- output tail ---\nok 1 - test_a",
                seconds=0.5,
            ),
            AttackResult(
                attack="py-os-exit-at-import",
                task="t1",
                applicable=True,
                status=Status.UNRESOLVED,
                evidence="F2P test_a failed",
                seconds=2.0,
            ),
            AttackResult(attack="py-sys-exit-at-import", task="t2", applicable=False),
            AttackResult(attack="py-os-exit-at-import", task="t2", applicable=False),
        ),
        gold=(
            GoldResult(task="t1", status=Status.RESOLVED, reward=1.0, resolved=True),
            GoldResult(
                task="t2", status=Status.TIMEOUT, reward=0.0, resolved=False, reason="time limit | 20 s"
            ),
        ),
    )


def test_write_attack_reports_renders_a_hole_and_a_lost_gold_patch(tmp_path: Path) -> None:
    report = _hole_report()
    md_path, js_path = write_attack_reports(report, tmp_path / "out", dataset="my|data")
    assert (md_path.name, js_path.name) == ("attacks_report.md", "attacks_report.json")
    md = md_path.read_text()
    assert "2 attacks x 2 tasks: 2 applied, **1 rewarded**; gold: 1 resolved, **1 lost**" in md
    # the hole: evidence's first line only, its pipe escaped
    assert "| py-sys-exit-at-import | t1 | resolved | 1 | - | all tests passed \\| forged |" in md
    assert "| t2 | timeout | 0 | time limit \\| 20 s |" in md
    assert "No attack earned a reward" not in md and "Every gold patch resolved" not in md
    rows = _matrix_rows(md)
    assert len(rows) == 4
    assert rows[0] == ["py-sys-exit-at-import", "python", "t1", "yes", "**resolved (rewarded)**", "1", "0.5"]
    assert rows[1] == ["py-os-exit-at-import", "python", "t1", "yes", "unresolved", "0", "2.0"]
    assert rows[2] == ["py-sys-exit-at-import", "python", "t2", "no", "n/a", "-", "-"]
    # the full evidence is kept in a fenced block
    assert "```text\nall tests passed | forged\n--- output tail ---\nok 1 - test_a\n```" in md

    data = json.loads(js_path.read_text())
    assert data["summary"] == {
        "dataset": "my|data",
        "catalogue": len(CATALOGUE),
        "attacks": 2,
        "tasks": 2,
        "rows": 4,
        "applied": 2,
        "suspicious_policy": "reject",
        "rewarded": 1,
        "rewarded_by_tests": 1,
        "screened": 0,
        "rewarded_flagged": 0,
        "accepted_holding_fix": 0,
        "gold_run": 2,
        "gold_resolved": 1,
        "gold_lost": 1,
        "gold_flagged": 0,
        "canary": {"none": 2},
        "tasks_with_decoys": 0,
        "tasks_with_controls": 0,
        "by_status": {"resolved": 1, "unresolved": 1},
    }
    assert "## Canary coverage" in md
    assert "| task | canary | decoys | controls |" in md
    assert AttackReport.model_validate(data) == report


def test_write_attack_reports_all_clear(tmp_path: Path) -> None:
    report = AttackReport(
        results=(
            AttackResult(attack="diff-dotdot-path", task="t1", applicable=True, status=Status.PATCH_FAILED),
        ),
        gold=(GoldResult(task="t1", status=Status.RESOLVED, reward=1.0, resolved=True),),
    )
    md_path, _ = write_attack_reports(report, tmp_path, dataset="builtin")
    md = md_path.read_text()
    assert "No attack earned a reward." in md and "Every gold patch resolved." in md
    assert "No gold patch was run" not in md
    language = CATALOGUE["diff-dotdot-path"].language
    assert _matrix_rows(md) == [["diff-dotdot-path", language, "t1", "yes", "patch_failed", "0", "0.0"]]


def test_a_candidate_holding_the_fix_is_counted_apart_from_the_holes(tmp_path: Path) -> None:
    """An accepted candidate that carries the gold fix behind a test-environment gate is reported in its
    own section and summary count, never as a hole (it did not earn the reward without the fix)."""
    gated = next(name for name, a in CATALOGUE.items() if a.holds_fix)
    report = AttackReport(
        results=(
            AttackResult(
                attack=gated,
                task="t1",
                applicable=True,
                status=Status.RESOLVED,
                reward=1.0,
                rewarded=True,
                holds_fix=True,
            ),
        ),
        gold=(GoldResult(task="t1", status=Status.RESOLVED, reward=1.0, resolved=True),),
    )
    assert report.holes == [] and len(report.gated) == 1
    md_path, js_path = write_attack_reports(report, tmp_path, dataset="builtin")
    md = md_path.read_text()
    assert "**0 rewarded**" in md and "No attack earned a reward." in md
    assert "## Accepted candidates that hold the fix" in md and f"| {gated} | t1 | resolved | 1 |" in md
    summary = json.loads(js_path.read_text())["summary"]
    assert (summary["rewarded"], summary["accepted_holding_fix"]) == (0, 1)


def test_cli_reports_a_hole_with_exit_1_and_caps_the_time_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The command's wiring, with the battery itself replaced (no sandboxed run)."""
    seen: dict[str, Any] = {}

    def fake_run_attacks(tasks: list[pb.Task], **kw: Any) -> AttackReport:
        seen["limits"] = {t.id: t.test.time_limit_s for t in tasks}
        seen["attacks"] = kw["attacks"]
        return _hole_report()

    monkeypatch.setattr(audit_cli, "run_attacks", fake_run_attacks)
    monkeypatch.setattr(audit_cli, "get_sandbox", lambda name: name)
    args = ["audit", "builtin", "--no-probes", "-t", _PY, "-t", _JS, "--report-dir", str(tmp_path)]
    code, out, _ = invoke(*args, "--attack", "py-sys-exit-at-import", "--time-limit", "7")
    assert code == 1, out
    assert seen == {"limits": {_PY: 7.0, _JS: 7.0}, "attacks": ["py-sys-exit-at-import"]}
    assert "1 attack(s) rewarded" in out and "1 gold patch(es) lost" in out
    assert "attacks_report.md" in out.replace("\n", "")  # a long report path wraps
    assert (tmp_path / "attacks_report.md").is_file() and (tmp_path / "audit_report.json").is_file()

    code, out, _ = invoke(*args, "--attacks", "--json")
    assert code == 1
    data = json.loads(out)
    assert set(data) == {"audit", "attacks"}
    default_limit = pb.select(pb.load("builtin").tasks, [_PY])[0].test.time_limit_s
    assert seen["attacks"] is None and seen["limits"][_PY] == default_limit
    assert data["attacks"]["summary"]["rewarded"] == 1 and data["audit"]["flagged"] == 0


# ------------------------------------------------------------------------------ the real battery, small


@pytest.mark.slow
def test_battery_on_two_builtin_tasks(tmp_path: Path) -> None:
    args = ["audit", "builtin", "--attacks", "--time-limit", "20", "--report-dir", str(tmp_path), "--json"]
    for a in ATTACKS:
        args += ["--attack", a]
    code, out, errs = invoke(*args, "--task", _PY, "--task", _JS, "-j", "2")
    assert code == 0, errs
    data = json.loads(out)["attacks"]
    tasks = pb.select(pb.load("builtin").tasks, [_PY, _JS])
    applicable = {(p.attack, p.task.id) for p in plan_attacks(tasks, ATTACKS) if p.candidate is not None}
    assert ("py-sys-exit-at-import", _PY) in applicable and ("py-sys-exit-at-import", _JS) not in applicable

    s = data["summary"]
    assert (s["attacks"], s["tasks"], s["rows"]) == (3, 2, 6)
    assert s["applied"] == len(applicable) and s["rewarded"] == 0
    assert (s["gold_run"], s["gold_resolved"], s["gold_lost"]) == (2, 2, 0)
    assert sum(s["by_status"].values()) == s["applied"] and "resolved" not in s["by_status"]
    assert {(r["attack"], r["task"]) for r in data["results"] if r["applicable"]} == applicable
    assert {g["task"]: g["resolved"] for g in data["gold"]} == {_PY: True, _JS: True}
    # both tasks' commands run the canary: forged or tampered reports are caught there
    assert {g["task"]: g["canary"] for g in data["gold"]} == {_PY: "failed", _JS: "failed"}
    assert s["canary"] == {"runs": 2}

    md = (tmp_path / "attacks_report.md").read_text()
    assert json.loads((tmp_path / "attacks_report.json").read_text()) == data
    rows = _matrix_rows(md)
    assert len(rows) == 6
    assert {(r[0], r[2]) for r in rows} == {(a, t) for a in ATTACKS for t in (_PY, _JS)}
    assert {(r[0], r[2]) for r in rows if r[3] == "yes"} == applicable
    assert "No attack earned a reward." in md and "Every gold patch resolved." in md


def test_the_report_counts_what_the_static_screen_caught(tmp_path: Path) -> None:
    """Under ``--suspicious reject`` (the default) a row the tests passed and the screen made unresolved
    is *screened*: not a hole, but counted beside the holes (what the tests alone reward) and listed; a
    gold patch the screen flagged is evidence only."""
    report = AttackReport(
        results=(
            AttackResult(
                attack="py-sys-exit-at-import",
                task="t1",
                applicable=True,
                status=Status.UNRESOLVED,
                reward=0.0,
                screened=True,
                flagged=("environment-read",),
            ),
            AttackResult(
                attack="py-os-exit-at-import",
                task="t1",
                applicable=True,
                status=Status.RESOLVED,
                reward=1.0,
                rewarded=True,
            ),
        ),
        gold=(
            GoldResult(task="t1", status=Status.RESOLVED, reward=1.0, resolved=True),
            GoldResult(task="t2", status=Status.RESOLVED, reward=1.0, resolved=True, flagged=("self-exec",)),
        ),
    )
    assert [r.attack for r in report.holes] == ["py-os-exit-at-import"]
    assert [r.attack for r in report.screened] == ["py-sys-exit-at-import"]
    assert [r.attack for r in report.holes_by_tests] == ["py-sys-exit-at-import", "py-os-exit-at-import"]
    assert [g.task for g in report.gold_flagged] == ["t2"] and not report.gold_lost
    md_path, js_path = write_attack_reports(report, tmp_path, dataset="builtin")
    md = md_path.read_text()
    assert "the tests alone passed 2; the static screen (`--suspicious reject`, the default) made **1**" in md
    assert "## Caught by the static screen alone" in md
    assert "| py-sys-exit-at-import | t1 | environment-read |" in md
    assert "- t2: self-exec" in md and "never rejected" in md
    summary = json.loads(js_path.read_text())["summary"]
    assert summary["suspicious_policy"] == "reject"
    assert (summary["rewarded"], summary["rewarded_by_tests"], summary["screened"]) == (1, 2, 1)
    assert summary["gold_flagged"] == 1 and summary["gold_lost"] == 0
    assert AttackReport.model_validate(json.loads(js_path.read_text())) == report
    # under report, the same rewarded row flagged by the screen is a hole, counted as flagged
    rows = (
        report.results[0].model_copy(
            update={"status": Status.RESOLVED, "reward": 1.0, "rewarded": True, "screened": False}
        ),
    )
    under_report = AttackReport(results=rows, policy=SuspiciousPolicy.REPORT)
    assert [r.attack for r in under_report.holes_flagged] == ["py-sys-exit-at-import"]
    md = attacks_to_markdown(under_report, dataset="builtin")
    assert "under `--suspicious report`: the static screen flagged 1 of the rewarded attacks" in md
    assert "| py-sys-exit-at-import | t1 | resolved | 1 | environment-read | - |" in md
