"""End-to-end: run(task, candidate) -> Verdict, through the real sandbox and environments."""

from __future__ import annotations

from pathlib import Path

import pytest

import patchbench as pb
from conftest import tap_task
from patchbench import Candidate, FileEntry, Status, Task, TestCommand, TestSpec, VerifierKind, VerifierSpec
from patchbench.errors import SandboxError
from patchbench.sandbox import BwrapSandbox, ExecRequest, ExecResult
from patchbench.workspace import ConfigPolicy

BUILTIN = pb.load("builtin").tasks

# A TAP suite reading the workspace: test "fixed" passes iff src.txt says fixed.
CHECK = (
    "echo 'TAP version 13'; echo 1..2; echo 'ok 1 - stays'; "
    "if grep -q fixed src.txt; then echo 'ok 2 - fixed'; else echo 'not ok 2 - fixed'; exit 1; fi"
)
GOLD = "--- a/src.txt\n+++ b/src.txt\n@@ -1 +1 @@\n-buggy\n+fixed\n"


def check_task(**kw: object) -> Task:
    t = tap_task(CHECK, f2p=("fixed",), p2p=("stays",))
    return t.model_copy(update={"gold_patch": GOLD, **kw})


@pytest.mark.parametrize("task", BUILTIN, ids=lambda t: t.id)
def test_builtin_gold_resolves(task: Task) -> None:
    v = pb.run(task, Candidate.gold())
    assert v.status is Status.RESOLVED, v.reason
    assert v.reward == 1.0 and v.pass_ratio == 1.0
    assert all(c.passed for c in v.fail_to_pass + v.pass_to_pass)


@pytest.mark.parametrize("task", BUILTIN, ids=lambda t: t.id)
def test_builtin_empty_and_wipe_do_not_resolve(task: Task) -> None:
    empty = pb.run(task, Candidate.empty())
    assert empty.status is Status.UNRESOLVED, empty.reason
    # Before the fix, exactly the F2P tests fail.
    assert not any(c.passed for c in empty.fail_to_pass)
    assert all(c.passed for c in empty.pass_to_pass)
    wiped = pb.run(task, Candidate.wipe())
    assert wiped.status in (Status.UNRESOLVED, Status.NO_TESTS)
    assert wiped.reward == 0.0


def test_gold_and_empty_on_a_tap_task() -> None:
    task = check_task()
    assert pb.run(task, Candidate.gold()).status is Status.RESOLVED
    v = pb.run(task, Candidate.empty())
    assert v.status is Status.UNRESOLVED
    assert [(c.id, c.passed) for c in v.fail_to_pass] == [("fixed", False)]
    assert v.exit_codes == (1,)


def test_diff_and_files_candidates() -> None:
    task = check_task()
    assert pb.run(task, Candidate.diff(GOLD)).status is Status.RESOLVED
    assert pb.run(task, Candidate.files({"src.txt": "fixed\n"})).status is Status.RESOLVED


def test_a_patch_that_does_not_apply_is_patch_failed_not_an_exception() -> None:
    v = pb.run(check_task(), Candidate.diff("--- a/src.txt\n+++ b/src.txt\n@@ -1 +1 @@\n-nothere\n+x\n"))
    assert v.status is Status.PATCH_FAILED
    assert "does not apply" in v.reason


def test_a_patch_escaping_the_workspace_is_patch_failed() -> None:
    evil = "--- a/../../etc/x\n+++ b/../../etc/x\n@@ -0,0 +1 @@\n+x\n"
    v = pb.run(check_task(), Candidate.diff(evil))
    assert v.status is Status.PATCH_FAILED
    assert "leaves the workspace" in v.reason


def test_zero_tests_is_never_a_pass() -> None:
    """A suite that prints nothing and exits 0 used to be 'all passed' in naive graders."""
    v = pb.run(tap_task("echo hello; exit 0"), Candidate.empty())
    assert v.status is Status.NO_TESTS and v.reward == 0.0


def test_a_listed_test_missing_from_the_output_failed() -> None:
    v = pb.run(tap_task("echo 1..1; echo 'ok 1 - other'", f2p=("wanted",)), Candidate.empty())
    assert v.status is Status.UNRESOLVED
    assert v.fail_to_pass[0].outcome is None and "wanted" in v.reason


def test_nonzero_exit_with_nothing_failing_is_not_a_pass() -> None:
    v = pb.run(tap_task("echo 1..1; echo 'ok 1 - a'; exit 3", p2p=("a",)), Candidate.empty())
    assert v.status is Status.UNRESOLVED
    assert "exited with 3" in v.reason


def test_output_truncated_by_the_sandbox_is_never_a_complete_pass() -> None:
    """Regression: the harness never read the capture's ``truncated`` flag. Here the sandbox keeps the
    head and tail of 300 kB of output; both test lines and the plan survive the cut, so the text alone
    reads as a complete pass, but what was dropped could have held anything."""
    flood = "echo 1..2; echo 'ok 1 - a'; head -c 300000 /dev/zero | tr '\\0' x; echo; echo 'ok 2 - b'"
    v = pb.run(tap_task(flood, f2p=("b",), p2p=("a",)), Candidate.empty())
    assert v.status is Status.UNRESOLVED, v.reason
    assert any("truncated" in n for n in v.notes), v.notes


def test_timeout_kills_the_run_and_is_status_timeout() -> None:
    v = pb.run(tap_task("echo 1..1; sleep 60", p2p=("a",), limit=1), Candidate.empty())
    assert v.status is Status.TIMEOUT
    assert v.durations.test_s < 15


def test_a_missing_test_tool_is_infra_error() -> None:
    v = pb.run(tap_task("definitely-not-a-command-xyz"), Candidate.empty())
    assert v.status is Status.INFRA_ERROR
    assert not v.status.candidate_fault


def test_an_unknown_language_is_infra_error_naming_it() -> None:
    task = tap_task("echo 1..1; echo ok 1 - a").model_copy(update={"language": "cobol"})
    task = task.model_copy(update={"env": task.env.model_copy(update={"language": "cobol"})})
    v = pb.run(task, Candidate.empty())
    assert v.status is Status.INFRA_ERROR and "cobol" in v.reason


class BrokenSandbox(BwrapSandbox):
    def exec(self, req: ExecRequest) -> ExecResult:
        raise SandboxError("bubblewrap could not start the sandbox: simulated")


def test_a_broken_sandbox_is_infra_error_never_a_pass_nor_a_fail() -> None:
    v = pb.run(check_task(), Candidate.gold(), sandbox=BrokenSandbox())
    assert v.status is Status.INFRA_ERROR
    assert v.reward == 0.0 and "simulated" in v.reason


def test_hidden_tests_overwrite_the_candidates_edits() -> None:
    """A candidate that rewrites the hidden test to always pass gets the real test back."""
    task = Task(
        id="inject",
        workspace=(FileEntry(path="src.txt", content="buggy\n"),),
        hidden_tests=(FileEntry(path="tests/t.sh", content=CHECK + "\n"),),
        test=TestSpec(commands=(TestCommand(argv=("bash", "tests/t.sh")),)),
        fail_to_pass=("fixed",),
    )
    forged = "echo 1..2; echo 'ok 1 - stays'; echo 'ok 2 - fixed'\n"
    v = pb.run(task, Candidate.files({"tests/t.sh": forged}))
    assert v.status is Status.UNRESOLVED


PYTEST_TASK = Task(
    id="pytest-task",
    workspace=(FileEntry(path="mod.py", content="def f():\n    return 1\n"),),
    hidden_tests=(
        FileEntry(
            path="tests/test_mod.py", content="from mod import f\n\ndef test_f():\n    assert f() == 2\n"
        ),
    ),
    test=TestSpec(commands=(TestCommand(argv=("python", "-m", "pytest", "-q", "tests")),)),
    fail_to_pass=("tests/test_mod.py::test_f",),
    gold_patch="--- a/mod.py\n+++ b/mod.py\n@@ -1,2 +1,2 @@\n def f():\n-    return 1\n+    return 2\n",
)

# A conftest that turns every failure into a pass.
CHEAT_CONFTEST = """
import pytest

@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    rep = outcome.get_result()
    rep.outcome = "passed"
"""


def test_pytest_task_gold_and_empty() -> None:
    assert pb.run(PYTEST_TASK, Candidate.gold()).status is Status.RESOLVED
    v = pb.run(PYTEST_TASK, Candidate.empty())
    assert v.status is Status.UNRESOLVED
    assert v.fail_to_pass[0].outcome is pb.Outcome.FAILED


def test_candidate_conftest_is_stripped_by_default() -> None:
    v = pb.run(PYTEST_TASK, Candidate.files({"conftest.py": CHEAT_CONFTEST}))
    assert v.status is Status.UNRESOLVED
    assert v.config_files_blocked == ("conftest.py",)


def test_candidate_conftest_fails_the_verdict_under_reject() -> None:
    v = pb.run(
        PYTEST_TASK, Candidate.files({"conftest.py": CHEAT_CONFTEST}), config_policy=ConfigPolicy.REJECT
    )
    assert v.status is Status.UNRESOLVED
    assert "test configuration" in v.reason


def test_pytest_that_exits_before_writing_its_report_is_not_a_pass() -> None:
    """os._exit(0) at import time kills pytest before the JUnit report exists: exit 0, no results."""
    v = pb.run(PYTEST_TASK, Candidate.files({"mod.py": "import os\nos._exit(0)\n"}))
    assert v.status is Status.NO_TESTS or v.status is Status.UNRESOLVED
    assert v.reward == 0.0


def test_keep_leaves_the_run_directory(tmp_path: Path) -> None:
    v = pb.run(check_task(), Candidate.gold(), keep=True)
    kept = [n for n in v.notes if n.startswith("run directory kept: ")]
    assert kept
    path = Path(kept[0].split(": ", 1)[1])
    assert (path / "workspace" / "src.txt").read_text() == "fixed\n"
    import shutil

    shutil.rmtree(path)


SUSPICIOUS = {"src.txt": "fixed\n", "pkg/probe.py": "import sys\nF = sys._getframe(0)\n"}


def test_the_screens_findings_reject_by_default_and_are_evidence_under_report() -> None:
    task = check_task()
    r = pb.run(task, Candidate.files(SUSPICIOUS))
    assert r.status is Status.UNRESOLVED and r.reward == 0.0 and r.screened
    assert "stack-introspection at pkg/probe.py:2" in r.reason
    assert [(f.code, f.path, f.line) for f in r.suspicious] == [("stack-introspection", "pkg/probe.py", 2)]
    v = pb.run(task, Candidate.files(SUSPICIOUS), suspicious_policy=pb.SuspiciousPolicy.REPORT)
    assert v.status is Status.RESOLVED and not v.screened, v.reason
    assert v.suspicious == r.suspicious
    gold = pb.run(task, Candidate.gold())
    assert gold.status is Status.RESOLVED and gold.suspicious == () and not gold.screened


# The gold fix reads the CPU count (environment-read): a fix whose business that is.
CPU_GOLD = GOLD + "--- /dev/null\n+++ b/pkg/pool.py\n@@ -0,0 +1,2 @@\n+import os\n+WORKERS = os.cpu_count()\n"


def test_the_gold_patch_and_what_it_shows_too_are_never_rejected() -> None:
    """Gold is the reference: its own findings stay evidence, and so do a candidate's findings of the
    codes gold's change shows (learnt with the task's controls); any other code is still rejected."""
    task = check_task(gold_patch=CPU_GOLD)
    gold = pb.run(task, Candidate.gold())
    assert gold.status is Status.RESOLVED, gold.reason
    assert [f.code for f in gold.suspicious] == ["environment-read"] and not gold.screened
    same = {"src.txt": "fixed\n", "pkg/jobs.py": "import os\nN = len(os.sched_getaffinity(0))\n"}
    v = pb.run(task, Candidate.files(same))
    assert v.status is Status.RESOLVED, v.reason
    assert [f.code for f in v.suspicious] == ["environment-read"] and not v.screened
    other = pb.run(task, Candidate.files({**same, **SUSPICIOUS}))
    assert other.status is Status.UNRESOLVED and other.screened
    assert "stack-introspection at pkg/probe.py:2" in other.reason
    assert "environment-read" not in other.reason  # the code gold shows is no evidence
    # on a task whose gold patch does not read the machine, the same code is held against the candidate
    alone = pb.run(check_task(), Candidate.files(same))
    assert alone.status is Status.UNRESOLVED and alone.screened


def test_reject_never_turns_a_failing_run_into_anything_else() -> None:
    files = {**SUSPICIOUS, "src.txt": "buggy\n"}
    v = pb.run(check_task(), Candidate.files(files))
    assert v.status is Status.UNRESOLVED and v.suspicious and not v.screened
    assert "stack-introspection" not in v.reason  # the tests' own failure is the reason


def test_script_verifier_runs_are_screened_too() -> None:
    task = Task(
        id="script-screen",
        workspace=(FileEntry(path="solution.py", content="x = 1\n"),),
        hidden_tests=(FileEntry(path="test.sh", content="echo 1 > /logs/verifier/reward.txt\n"),),
        test=TestSpec(commands=(TestCommand(shell="bash /tests/test.sh"),)),
        verifier=VerifierSpec(kind=VerifierKind.SCRIPT),
    )
    hack = Candidate.files({"solution.py": "x = 1\nopen('/logs/verifier/reward.txt', 'w').write('1')\n"})
    v = pb.run(task, hack, suspicious_policy=pb.SuspiciousPolicy.REPORT)
    assert v.status is Status.RESOLVED, v.reason
    assert [(f.code, f.line) for f in v.suspicious] == [("report-write", 2)]
    r = pb.run(task, hack)
    assert r.status is Status.UNRESOLVED and r.screened


def test_script_tasks_screen_app_files_named_like_the_hidden_tests() -> None:
    """Regression: the hidden tests live in /tests, yet /app files with their names were skipped."""
    task = Task(
        id="script-screen-names",
        workspace=(FileEntry(path="solution.py", content="x = 1\n"),),
        hidden_tests=(
            FileEntry(path="test.sh", content="echo 1 > /logs/verifier/reward.txt\n"),
            FileEntry(path="test_solution.py", content="def test_x():\n    pass\n"),
        ),
        test=TestSpec(commands=(TestCommand(shell="bash /tests/test.sh"),)),
        verifier=VerifierSpec(kind=VerifierKind.SCRIPT),
    )
    hack = Candidate.files({"test_solution.py": "open('/logs/verifier/reward.txt', 'w').write('1')\n"})
    v = pb.run(task, hack)
    assert [(f.code, f.path) for f in v.suspicious] == [("report-write", "test_solution.py")]
