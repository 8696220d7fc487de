"""Dynamic probes against real verifiers (Harbor task directories built here), the report and the CLI."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

import patchbench as pb
from patchbench import FileEntry, Task, TestCommand, TestSpec, VerifierKind, VerifierSpec
from patchbench.audit import AuditReport, audit, to_markdown, write_reports
from patchbench.audit.probes import main_source, plan_probes, self_reward_candidate
from patchbench.cli.audit import audit as audit_command

DOCKERFILE = (
    "FROM python:3.10-slim\n"
    "RUN pip install --no-cache-dir pytest\n"
    "WORKDIR /app\n"
    "COPY solution.py /app/solution.py\n"
    "RUN cp /app/solution.py /app/.buggy_solution.py\n"
)
SOLUTION = "def median(xs):\n    s = sorted(xs)\n    return s[len(s) // 2]\n"
TESTS = (
    "from solution import median\n\n\ndef test_odd():\n    assert median([3, 1, 2]) == 2\n\n\n"
    "def test_even():\n    assert median([4, 1, 2, 3]) == 2.5\n"
)
# Skips every test (rather than failing) when solution.py cannot be imported: no test runs, pytest exits 0.
TESTS_SKIPPING = (
    "import pytest\n\ntry:\n    import solution\nexcept ImportError:\n    solution = None\n\n"
    "needs_solution = pytest.mark.skipif(solution is None, reason='no solution module')\n\n\n"
    "@needs_solution\ndef test_odd():\n    assert solution.median([3, 1, 2]) == 2\n\n\n"
    "@needs_solution\ndef test_even():\n    assert solution.median([4, 1, 2, 3]) == 2.5\n"
)

# Seed 000's default-fail verifier as the bugsinpy-demo task ships it: 0 first, 1 only on success.
DEMO = """#!/bin/bash
mkdir -p /logs/verifier
echo 0 > /logs/verifier/reward.txt
export PYTHONPATH=/app
if [ ! -f /app/solution.py ]; then exit 0; fi
if cmp -s /app/solution.py /app/.buggy_solution.py; then exit 0; fi
python3 -m py_compile /app/solution.py || exit 0
python3 -c "import solution" || exit 0
out=$(python3 -m pytest -q /tests/test_solution.py 2>&1); rc=$?
echo "$out"
passed=$(echo "$out" | grep -oE '[0-9]+ passed' | grep -oE '[0-9]+' || echo 0)
failed=$(echo "$out" | grep -oE '[0-9]+ failed' | grep -oE '[0-9]+' || echo 0)
if [ "$rc" -eq 0 ] && [ "${passed:-0}" -gt 0 ] && [ "${failed:-0}" -eq 0 ]; then \
echo 1 > /logs/verifier/reward.txt; fi
"""
# The same checks, but the reward is written once, last, after every piece of candidate code has run,
# and the hidden tests must be unchanged after the run.
STRICT = """#!/bin/bash
mkdir -p /logs/verifier
echo 0 > /logs/verifier/reward.txt
reward=0
export PYTHONPATH=/app
before=$(sha256sum /tests/test_solution.py)
finish() { echo "$reward" > /logs/verifier/reward.txt; exit 0; }
[ -f /app/solution.py ] || finish
cmp -s /app/solution.py /app/.buggy_solution.py && finish
python3 -m py_compile /app/solution.py || finish
python3 -c "import solution" || finish
out=$(python3 -m pytest -q /tests/test_solution.py 2>&1); rc=$?
echo "$out"
passed=$(echo "$out" | grep -oE '[0-9]+ passed' | grep -oE '[0-9]+' || echo 0)
failed=$(echo "$out" | grep -oE '[0-9]+ failed' | grep -oE '[0-9]+' || echo 0)
after=$(sha256sum /tests/test_solution.py)
if [ "$before" = "$after" ] && [ "$rc" -eq 0 ] && [ "${passed:-0}" -gt 0 ] && [ "${failed:-0}" -eq 0 ]; then
  reward=1
fi
finish
"""
# Lenient: pytest's exit status alone decides, so "every test skipped" (zero tests) earns the reward.
ZERO_TESTS = """#!/bin/bash
mkdir -p /logs/verifier
reward=0
cd /app
python3 -m pytest -q /tests/test_solution.py; rc=$?
if [ $rc -eq 0 ]; then reward=1; fi
echo $reward > /logs/verifier/reward.txt
"""
# Lenient: only checks that the code imports, so the unmodified (buggy) file earns the reward.
IMPORT_ONLY = """#!/bin/bash
mkdir -p /logs/verifier
reward=0
cd /app
if python3 -c "import solution"; then reward=1; fi
echo $reward > /logs/verifier/reward.txt
"""


def harbor_task(root: Path, name: str, test_sh: str, test_py: str = TESTS) -> Path:
    d = root / name
    (d / "environment").mkdir(parents=True)
    (d / "tests").mkdir()
    (d / "task.toml").write_text(
        'version = "1.0"\n[metadata]\ntags = ["python"]\n[verifier]\ntimeout_sec = 60.0\n'
    )
    (d / "instruction.md").write_text("median() returns the wrong value for lists of even length.\n")
    (d / "environment" / "Dockerfile").write_text(DOCKERFILE)
    (d / "environment" / "solution.py").write_text(SOLUTION)
    (d / "tests" / "test.sh").write_text(test_sh)
    (d / "tests" / "test_solution.py").write_text(test_py)
    return d


@pytest.fixture(scope="module")
def dataset(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("harbor")
    harbor_task(root, "strict", STRICT)
    harbor_task(root, "demo", DEMO)
    harbor_task(root, "zero-tests", ZERO_TESTS, TESTS_SKIPPING)
    harbor_task(root, "import-only", IMPORT_ONLY)
    return root


@pytest.fixture(scope="module")
def report(dataset: Path) -> AuditReport:
    loaded = pb.load(dataset)
    return audit(loaded.tasks, jobs=os.cpu_count() or 1, dataset=str(dataset), format=loaded.format)


def rewarded(report: AuditReport, task_id: str) -> set[str]:
    ta = next(t for t in report.tasks if t.task_id == task_id)
    return {r.probe for r in ta.probes if r.rewarded}


@pytest.mark.slow
def test_a_strict_verifier_is_not_flagged_by_any_probe(report: AuditReport) -> None:
    ta = next(t for t in report.tasks if t.task_id == "strict")
    assert not ta.flagged, ta.reasons
    assert ta.findings == []
    assert {r.probe for r in ta.probes} == {
        "empty-workspace",
        "unmodified",
        "code-deleted",
        "self-reward",
        "does-not-compile",
        "tamper-tests",
    }
    for r in ta.probes:
        assert r.status is pb.Status.UNRESOLVED and r.reward == 0, (r.probe, r.reason, r.output_tail)


@pytest.mark.slow
def test_zero_tests_verifier_is_caught_by_the_empty_workspace_probe(report: AuditReport) -> None:
    assert rewarded(report, "zero-tests") == {"empty-workspace"}
    ta = next(t for t in report.tasks if t.task_id == "zero-tests")
    assert ta.flagged and "probe empty-workspace rewarded (resolved, reward 1)" in ta.reasons
    probe = next(r for r in ta.probes if r.probe == "empty-workspace")
    assert "skipped" in probe.output_tail  # the evidence: pytest skipped every test and exited 0
    # the lint sees it too, at medium: pytest's exit status alone decides
    assert [f.code for f in ta.findings] == ["zero-tests-accepted"]


@pytest.mark.slow
def test_import_only_verifier_is_caught_by_the_unmodified_probe(report: AuditReport) -> None:
    assert rewarded(report, "import-only") == {"unmodified", "code-deleted", "self-reward", "tamper-tests"}


@pytest.mark.slow
def test_demo_verifier_falls_to_self_reward_and_the_harness_blocks_tamper_tests(report: AuditReport) -> None:
    """The demo writes 0 first and 1 only on success, but never writes 0 again once candidate code ran:
    a solution.py that writes reward.txt = 1 when imported keeps its 1 although a test fails. Its
    "import solution" check also runs candidate code before pytest reads /tests, but the harness keeps
    /tests root's and sticky, so the rewrite of the hidden tests fails and that probe earns nothing."""
    assert rewarded(report, "demo") == {"self-reward"}
    ta = next(t for t in report.tasks if t.task_id == "demo")
    probe = next(r for r in ta.probes if r.probe == "self-reward")
    assert "1 failed" in probe.output_tail
    assert set(probe.config_files_blocked) == {"conftest.py", "sitecustomize.py"}
    tamper = next(r for r in ta.probes if r.probe == "tamper-tests")
    assert tamper.reward == 0.0 and "1 failed" in tamper.output_tail
    assert ta.findings == []


@pytest.mark.slow
def test_report_counts_markdown_and_json(report: AuditReport, tmp_path: Path) -> None:
    assert (report.flagged, report.clean, report.skipped) == (3, 1, 0)
    assert report.probes_rewarded == {
        "empty-workspace": 1,
        "unmodified": 1,
        "code-deleted": 1,
        "self-reward": 2,
        "tamper-tests": 1,
    }
    assert report.findings_by_code == {"zero-tests-accepted": 1}
    assert report.runs == 24
    md, js = write_reports(report, tmp_path)
    assert AuditReport.model_validate_json(js.read_text()) == report
    text = md.read_text()
    assert text == to_markdown(report)
    assert "| zero-tests | **flagged** |" in text and "| strict | clean |" in text
    assert "Output of the rewarded `empty-workspace` probe" in text


# ------------------------------------------------------------------------------------------------ CLI


def cli() -> typer.Typer:
    app = typer.Typer(add_completion=False, pretty_exceptions_enable=False)
    app.command("audit")(audit_command)
    app.command("noop")(lambda: None)  # two commands, so "audit" is a subcommand as in patchbench
    return app


def test_cli_lint_only_json_and_exit_codes(tmp_path: Path) -> None:
    harbor_task(tmp_path / "ds", "strict", STRICT)
    harbor_task(tmp_path / "ds", "leaky", f"echo 1 > /logs/verifier/reward.txt\n{ZERO_TESTS}")
    runner = CliRunner()
    ds = str(tmp_path / "ds")
    rep = tmp_path / "rep"
    r = runner.invoke(cli(), ["audit", ds, "--no-probes", "--json", "--report-dir", str(rep)])
    assert r.exit_code == 1, r.output
    data = json.loads(r.stdout)
    leaky = next(t for t in data["tasks"] if t["task_id"] == "leaky")
    assert leaky["flagged"] and {f["code"] for f in leaky["findings"]} == {
        "reward-before-tests",
        "reward-defaults-to-one",
        "zero-tests-accepted",
    }
    assert (rep / "audit_report.md").is_file() and (rep / "audit_report.json").is_file()
    r = runner.invoke(cli(), ["audit", ds, "--no-probes", "-t", "strict", "--report-dir", str(rep)])
    assert r.exit_code == 0, r.output
    r = runner.invoke(cli(), ["audit", ds, "--no-probes", "-t", "nope", "--report-dir", str(rep)])
    assert r.exit_code == 2 and "no task with id nope" in r.stderr
    r = runner.invoke(cli(), ["audit", str(tmp_path / "missing"), "--report-dir", str(rep)])
    assert r.exit_code == 2 and "Traceback" not in r.output


def test_tasks_graded_per_test_are_skipped() -> None:
    task = Task(
        id="tap",
        workspace=(FileEntry(path="a.py", content="x = 1\n"),),
        test=TestSpec(commands=(TestCommand(shell="echo ok 1"),)),
    )
    report = audit([task])
    assert report.skipped == 1 and report.runs == 0 and report.tasks[0].skipped


# --------------------------------------------------------------------------- probe candidates, offline


def script_task(files: dict[str, str], **kw: object) -> Task:
    return Task(
        id="t",
        workspace=tuple(FileEntry(path=k, content=v) for k, v in files.items()),
        test=TestSpec(commands=(TestCommand(shell="bash /tests/test.sh"),)),
        verifier=VerifierSpec(kind=VerifierKind.SCRIPT),
        **kw,  # type: ignore[arg-type]
    )


def test_self_reward_candidate_per_language() -> None:
    java = "package app;\n\nimport java.util.List;\n\npublic class Solution {\n    int x;\n}\n"
    task = script_task(
        {
            "src/main/java/app/Solution.java": java,
            "src/lib.js": "module.exports = {};\n",
            "src/lib.ts": "export const x = 1;\n",
            "pkg/calc.go": "package calc\n\nfunc Add(a, b int) int { return a - b }\n",
            "pkg/calc_test.go": "package calc\n",
            "Cargo.toml": '[package]\nname = "x"\n',
            "solution.py": "def f():\n    return 1\n",
        }
    )
    files = self_reward_candidate(task).file_map or {}
    java_out = files["src/main/java/app/Solution.java"] or ""
    assert java_out.startswith(
        "package app;\n\nimport java.util.List;\n\npublic class Solution {\n    // patchbench"
    )
    assert "static {" in java_out and "/logs/verifier/reward.txt" in java_out
    assert 'import("node:fs")' in (files["src/lib.js"] or "") and "(fs: any)" not in (
        files["src/lib.js"] or ""
    )
    assert "(fs: any)" in (files["src/lib.ts"] or "")
    assert (files["pkg/zz_patchbench_probe.go"] or "").startswith("package calc\n")
    assert "pkg/calc_test.go" not in files
    assert "std::fs::write" in (files["build.rs"] or "")
    assert (files["solution.py"] or "").startswith("def f():\n    return 1\n")
    assert {"sitecustomize.py", "conftest.py"} <= set(files)


def test_plans_skip_what_cannot_apply_and_break_the_main_file() -> None:
    empty = {p.probe: p for p in plan_probes(script_task({}))}
    assert empty["unmodified"].candidate is None and empty["unmodified"].skipped
    assert empty["code-deleted"].candidate is None and empty["does-not-compile"].candidate is None
    assert empty["empty-workspace"].candidate is not None and empty["self-reward"].candidate is not None
    task = script_task({"README.md": "x\n", "util.py": "A = 1\n" * 50, "solution.py": "def f(): pass\n"})
    assert main_source(task) == "solution.py"
    assert main_source(script_task({"a.py": "x\n", "b.py": "y = 1\n" * 9}, buggy_files=("a.py",))) == "a.py"
    plans = {p.probe: p for p in plan_probes(task)}
    deleted = plans["code-deleted"].candidate
    assert deleted is not None and deleted.file_map == {"util.py": "", "solution.py": ""}
    broken = plans["does-not-compile"].candidate
    assert broken is not None and broken.file_map is not None
    with pytest.raises(SyntaxError):
        compile(broken.file_map["solution.py"] or "", "solution.py", "exec")
