"""The grader's own trust boundary (issue 13): what the sandboxed code leaves behind, the limits a row or a
candidate could switch off, and who gets blamed.

Each case is a candidate or a dataset row with its verdict asserted and a bounded wall time. The cases
that plant a report are graded in a child process (``python tests/sandbox/test_boundary.py CASE``) whose
own peak RSS (``ru_maxrss`` of that grader process, not of the sandboxed code) is asserted under 300 MB.
"""

from __future__ import annotations

import json
import os
import resource
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

HERE = Path(__file__).resolve()
ROOT = HERE.parents[2]
sys.path.insert(0, str(ROOT / "tests"))

import patchbench as pb  # noqa: E402
from conftest import tap_task  # noqa: E402
from patchbench import Candidate, FileEntry, Status, Task, TestCommand, TestSpec  # noqa: E402
from patchbench.lifecycle import cleanup_now, open_run_dir, reap_stale, run_cgroup_parents  # noqa: E402
from patchbench.sandbox import Bind, BwrapSandbox, ExecRequest, Limits  # noqa: E402

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="the boundary cases run the bwrap sandbox as root")

MAX_RSS_MB = 300
PYTHON = sys.executable

PYTEST_TASK = Task(
    id="boundary-pytest",
    workspace=(FileEntry(path="mod.py", content="def f():\n    return 1\n"),),
    hidden_tests=(
        FileEntry(
            path="tests/test_mod.py", content="from mod import f\n\ndef test_f():\n    assert f() == 2\n"
        ),
    ),
    test=TestSpec(commands=(TestCommand(argv=("python", "-m", "pytest", "-q", "tests")),), time_limit_s=120),
    fail_to_pass=("tests/test_mod.py::test_f",),
    gold_patch="--- a/mod.py\n+++ b/mod.py\n@@ -1,2 +1,2 @@\n def f():\n-    return 1\n+    return 2\n",
)

# The candidate fixes f() but, at exit (after pytest wrote its honest report), swaps the report for
# something else. %s is the swap, with `p` the report's path.
SWAP = """
import atexit, os, re

def _swap():
    m = re.search(r"--junitxml=(\\S+)", os.environ.get("PYTEST_ADDOPTS", ""))
    p = m.group(1).strip("'")
    os.unlink(p)
    %s

atexit.register(_swap)

def f():
    return 2
"""
# A report claiming the listed test passed: a grader that follows the link would resolve the candidate.
FORGED = (
    '<testsuites><testsuite name="pytest" tests="1">'
    '<testcase classname="tests.test_mod" name="test_f" file="tests/test_mod.py"/>'
    '<testcase classname="leak.secret" name="LEAKED_SECRET_ID"/>'
    "</testsuite></testsuites>"
)
# Under every size cap (14 MiB), but 400,000 entries: parsed, they took the grader to 584 MB.
DENSE = (
    "fh = open(p, 'wb'); fh.write(b'<testsuites><testsuite name=\"x\">')\n"
    '    for i in range(400_000): fh.write(b\'<testcase classname="t.m" name="t%d"/>\' % i)\n'
    "    fh.write(b'</testsuite></testsuites>'); fh.close()"
)
BIG = (
    "fh = open(p, 'wb'); fh.write(b'<testsuites><testsuite name=\"x\">')\n"
    '    row = b\'<testcase classname="tests.test_mod" name="test_f"/>\' * 1000\n'
    "    for _ in range(300 * 2**20 // len(row)): fh.write(row)\n"
    "    fh.write(b'</testsuite></testsuites>'); fh.close()"
)


def _swap_candidate(case: str, secret: str | None = None) -> Candidate:
    swaps = {
        "fifo": "os.mkfifo(p)",
        "dev-zero": "os.symlink('/dev/zero', p)",
        "root-only": f"os.symlink({secret!r}, p)",
        "300mb": BIG,
        "400k-cases": DENSE,
    }
    return Candidate.files({"mod.py": SWAP % swaps[case]}, label=case)


def _peak_rss_mb() -> float:
    """This process's own peak RSS since it exec'd (``VmHWM``). Not ``ru_maxrss``: Linux carries that over
    exec from the forking parent, so a child of a large pytest process reported the parent's size (341
    MB in the full suite, 111 MB alone)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def grade_case(case: str, secret: str | None) -> dict[str, Any]:
    """Grade one planted-report case in this process (the child) and report its own peak RSS."""
    t0 = time.monotonic()
    v = pb.run(PYTEST_TASK, _swap_candidate(case, secret))
    return {
        "status": v.status.value,
        "reason": v.reason,
        "tests": [t.id for t in v.tests],
        "dump": v.model_dump_json(),
        "seconds": time.monotonic() - t0,
        "rss_mb": _peak_rss_mb(),
    }


def _in_child(case: str, secret: str | None = None, timeout: float = 180) -> dict[str, Any]:
    args = [PYTHON, str(HERE), case, *([secret] if secret else [])]
    r = subprocess.run(args, capture_output=True, text=True, timeout=timeout, cwd=ROOT)
    assert r.returncode == 0, r.stderr[-2000:]
    out: dict[str, Any] = json.loads(r.stdout.strip().splitlines()[-1])
    return out


# -- 1. reports the candidate replaced --------------------------------------------------------------


@pytest.mark.parametrize("case", ["fifo", "dev-zero", "300mb", "400k-cases"])
def test_a_planted_report_is_the_candidates_unresolved_in_bounded_time_and_memory(case: str) -> None:
    """A FIFO used to hang `patchbench run` forever, /dev/zero grew it to gigabytes, a 300 MB report took
    it to 2.7 GB RSS: each is now refused unread, the candidate's unresolved, never infra_error."""
    t0 = time.monotonic()
    got = _in_child(case)
    wall = time.monotonic() - t0
    assert got["status"] == "unresolved", got["reason"]
    assert "refused unread" in got["reason"]
    assert wall < 90, f"{case}: {wall:.1f}s"
    assert got["rss_mb"] < MAX_RSS_MB, f"{case}: the grader peaked at {got['rss_mb']:.0f} MB"
    print(f"{case}: {got['seconds']:.2f}s, grader peak RSS {got['rss_mb']:.0f} MB: {got['reason'][:120]}")


def test_a_report_linked_to_a_root_only_file_is_not_followed(tmp_path: Path) -> None:
    """The link used to be followed on the host: ids from a root-only file appeared in the verdict (and a
    forged passing report there resolved the candidate)."""
    secret = tmp_path / "root-only.xml"
    secret.write_text(FORGED)
    secret.chmod(0o600)
    t0 = time.monotonic()
    got = _in_child("root-only", str(secret))
    assert got["status"] == "unresolved" and "symlink" in got["reason"], got["reason"]
    assert "LEAKED_SECRET_ID" not in got["dump"]
    assert got["tests"] == []
    assert time.monotonic() - t0 < 90
    assert got["rss_mb"] < MAX_RSS_MB


def test_the_same_candidate_without_the_swap_resolves() -> None:
    """Control: the fix itself is right, so only the swap is what the cases above punish."""
    v = pb.run(PYTEST_TASK, Candidate.files({"mod.py": "def f():\n    return 2\n"}))
    assert v.status is Status.RESOLVED, v.reason


def test_a_planted_reward_file_is_the_candidates_unresolved(tmp_path: Path) -> None:
    """A script verifier's reward.txt replaced by a symlink to a host file holding 1: not followed."""
    host = tmp_path / "one.txt"
    host.write_text("1\n")
    host.chmod(0o600)
    test_sh = (
        "#!/bin/bash\nmkdir -p /logs/verifier\nbash /app/run.sh\n"
        "[ -e /logs/verifier/reward.txt ] || echo 0 > /logs/verifier/reward.txt\n"
    )
    task = Task(
        id="boundary-script",
        workspace=(FileEntry(path="run.sh", content="true\n"),),
        hidden_tests=(FileEntry(path="test.sh", content=test_sh, executable=True),),
        test=TestSpec(commands=(TestCommand(shell="bash /tests/test.sh"),), time_limit_s=60),
        verifier=pb.VerifierSpec(kind=pb.VerifierKind.SCRIPT),
    )
    cand = Candidate.files({"run.sh": f"ln -s {host} /logs/verifier/reward.txt\n"})
    t0 = time.monotonic()
    v = pb.run(task, cand)
    assert v.status is Status.UNRESOLVED and "symlink" in v.reason, v.reason
    assert v.reward == 0.0
    assert time.monotonic() - t0 < 60


# -- 2. attribution -----------------------------------------------------------------------------------


@pytest.mark.parametrize("code", [4, 3, 127])
def test_an_abnormal_exit_at_import_is_the_candidates_failure(code: int) -> None:
    """os._exit(4) at import is pytest's "usage error" exit code: it used to read as infra_error (exit 3
    of the CLI), which retries and validation never count against the candidate."""
    t0 = time.monotonic()
    v = pb.run(PYTEST_TASK, Candidate.files({"mod.py": f"import os\nos._exit({code})\n"}))
    assert v.status is Status.UNRESOLVED, v.reason
    assert v.status.candidate_fault
    assert f"exit {code}" in v.reason and "candidate's code loaded" in v.reason
    assert time.monotonic() - t0 < 120


def test_a_command_that_cannot_run_on_the_unmodified_task_is_still_infra_error() -> None:
    v = pb.run(tap_task("definitely-not-a-command-xyz"), Candidate.files({"src.txt": "x\n"}))
    assert v.status is Status.INFRA_ERROR
    assert "unmodified task fails the same way" in v.reason


def test_a_candidate_removing_the_working_directory_is_not_infra_error() -> None:
    """bwrap cannot chdir into a missing directory (a set-up failure: infra). The candidate's code run by
    the first command removes the working directory; the harness recreates it before the next command,
    so the candidate cannot claim an infrastructure fault."""
    task = Task(
        id="boundary-workdir",
        workspace=(FileEntry(path="run.sh", content="true\n"), FileEntry(path="sub/src.txt", content="x\n")),
        test=TestSpec(
            commands=(TestCommand(shell="bash ../run.sh"), TestCommand(shell="echo 1..1; echo ok 1 - a")),
            workdir="sub",
            time_limit_s=60,
        ),
        fail_to_pass=("a",),
    )
    v = pb.run(task, Candidate.files({"run.sh": "rm -rf /workspace/sub\n"}))
    assert v.status is not Status.INFRA_ERROR, v.reason
    assert v.exit_codes == (0, 0)  # the second command ran, in a fresh working directory
    assert "ok 1 - a" in v.stdout_tail


def test_a_bwrap_set_up_failure_is_a_sandbox_error(tmp_path: Path) -> None:
    """bwrap exits 1 without the command's exit-code on --json-status-fd when a bind fails: infra."""
    req = ExecRequest(
        argv=["true"],
        cwd="/",
        binds=[Bind(tmp_path / "does-not-exist", "/somewhere")],
        env={"PATH": "/usr/bin:/bin"},
    )
    with pytest.raises(pb.SandboxError, match="could not set up the sandbox"):
        BwrapSandbox().exec(req)


# -- 3. limits ----------------------------------------------------------------------------------------


def test_filling_the_disk_hits_the_run_quota_and_counts_in_the_verdict() -> None:
    """Six 1 GiB files under the 1 GiB per-file cap wrote 5.3 GB to the host disk in 14 s; the run
    directory is now a tmpfs of the quota (default 2 GiB), and hitting it is the verdict's reason."""
    fill = "for i in 1 2 3 4 5 6; do head -c 1073741824 /dev/zero > fill$i; done; echo 1..1; echo ok 1 - a"
    t0 = time.monotonic()
    v = pb.run(tap_task(fill, f2p=("a",), limit=120), Candidate.empty())
    assert v.status is Status.UNRESOLVED, v.reason
    assert "disk quota" in v.reason
    assert time.monotonic() - t0 < 90


def _row(**kw: Any) -> dict[str, Any]:
    row = {
        "task_id": "ok-row",
        "repo_files": [{"filename": "a.py", "content": "x = 1\n"}],
        "test_files": [{"filename": "tests/test_a.py", "content": "def test_a():\n    pass\n"}],
        "test_command": ["python", "-m", "pytest", "-q"],
        "fail_to_pass": ["tests/test_a.py::test_a"],
        "pass_to_pass": [],
        "time_limit_s": 60,
    }
    row.update(kw)
    return row


def _load_rows(tmp_path: Path, lines: list[str]) -> pb.Loaded:
    f = tmp_path / "rows.jsonl"
    f.write_text("\n".join(lines) + "\n")
    return pb.load(f)


@pytest.mark.parametrize("limit", [1e300, float("inf"), float("nan"), -5, 0.0, 86_401])
def test_an_absurd_time_limit_makes_the_row_bad_task(tmp_path: Path, limit: float) -> None:
    """time_limit_s 1e300 crashed the timer thread and the run had no time limit at all."""
    good = _row()
    bad = _row(task_id="bad-limit", time_limit_s=limit)
    # json.dumps writes inf/nan as Infinity/NaN, which Python's JSON reader accepts
    loaded = _load_rows(tmp_path, [json.dumps(good), json.dumps(bad)])
    ids = [t.id for t in loaded.tasks]
    if limit == 0.0:  # a missing or zero limit is the documented default (600 s)
        assert ids == ["ok-row", "bad-limit"]
        return
    assert ids == ["ok-row"]
    (err,) = loaded.errors
    assert err.row == "bad-limit" and "time_limit_s" in str(err)
    verdicts = pb.api.bad_task_verdicts(loaded, Candidate.empty())
    assert [(v.task_id, v.status) for v in verdicts] == [("bad-limit", Status.BAD_TASK)]


def test_the_kill_timer_survives_a_huge_limit() -> None:
    """A limit that slipped past validation (a Limits built by hand) must not crash the timer thread."""
    crashed: list[BaseException] = []
    old = threading.excepthook
    threading.excepthook = lambda a: crashed.append(a.exc_value or RuntimeError())
    try:
        t0 = time.monotonic()
        r = BwrapSandbox().exec(
            ExecRequest(argv=["true"], cwd="/", env={"PATH": "/usr/bin:/bin"}, limits=Limits(timeout_s=1e300))
        )
    finally:
        threading.excepthook = old
    assert r.exit_code == 0 and not crashed, crashed
    assert time.monotonic() - t0 < 30


def test_fail_to_pass_given_as_a_string_is_bad_task_not_split(tmp_path: Path) -> None:
    """A string fail_to_pass was split into characters, and the gold patch then failed."""
    loaded = _load_rows(
        tmp_path,
        [json.dumps(_row()), json.dumps(_row(task_id="str-f2p", fail_to_pass="tests/test_a.py::test_a"))],
    )
    assert [t.id for t in loaded.tasks] == ["ok-row"]
    assert loaded.tasks[0].fail_to_pass == ("tests/test_a.py::test_a",)
    (err,) = loaded.errors
    assert err.row == "str-f2p" and "fail_to_pass must be a list" in str(err)


# -- 4. smaller ---------------------------------------------------------------------------------------


def test_a_broken_jsonl_line_is_one_bad_task_and_the_good_rows_stay(tmp_path: Path) -> None:
    lines = [json.dumps(_row()), '{"task_id": "half', json.dumps(_row(task_id="ok-2"))]
    loaded = _load_rows(tmp_path, lines)
    assert [t.id for t in loaded.tasks] == ["ok-row", "ok-2"]
    verdicts = pb.api.bad_task_verdicts(loaded, Candidate.empty())
    assert [(v.task_id, v.status) for v in verdicts] == [("line 2", Status.BAD_TASK)]


def test_skipped_row_lines_keep_the_row_id_in_table_mode(tmp_path: Path) -> None:
    """rich read `[row str-f2p]` as a markup tag and dropped it from `skipped row:` lines."""
    f = tmp_path / "rows.jsonl"
    f.write_text(json.dumps(_row()) + "\n" + json.dumps(_row(task_id="[bold]x", fail_to_pass="t")) + "\n")
    r = subprocess.run(
        [PYTHON, "-m", "patchbench.cli", "tasks", str(f)],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
        env={**os.environ, "COLUMNS": "400"},
    )
    assert r.returncode == 0, r.stderr
    line = next(ln for ln in r.stderr.splitlines() if ln.startswith("skipped row:"))
    assert "[row [bold]x]" in line, line


def _children_of(pid: int) -> list[int]:
    out = []
    for p in Path("/proc").iterdir():
        if p.name.isdigit():
            try:
                ppid = int((p / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            if ppid == pid:
                out.append(int(p.name))
    return out


SLEEPER = """
import sys
sys.path.insert(0, {tests!r})
from conftest import tap_task
import patchbench as pb
from patchbench.lifecycle import install_signal_cleanup
install_signal_cleanup()
print("started", flush=True)
pb.run(tap_task("sleep 120; echo 1..1; echo ok 1 - a", limit=300), pb.Candidate.empty())
"""


@pytest.fixture
def started(tmp_path: Path) -> Iterator[list[subprocess.Popen[Any]]]:
    """The patchbench processes a test starts: killed, and what they left reaped, whatever happened."""
    procs: list[subprocess.Popen[Any]] = []
    yield procs
    for p in procs:
        if p.poll() is None:
            p.kill()
            p.wait(timeout=30)
    for root in (tmp_path, tmp_path / "runs"):
        reap_stale(root)


def _start_sleeper(
    runs: Path, started: list[subprocess.Popen[Any]]
) -> tuple[subprocess.Popen[str], Path, list[Path]]:
    env = {**os.environ, "PATCHBENCH_RUNS": str(runs)}
    proc = subprocess.Popen(
        [PYTHON, "-c", SLEEPER.format(tests=str(ROOT / "tests"))], env=env, stdout=subprocess.PIPE, text=True
    )
    started.append(proc)
    deadline = time.monotonic() + 60
    rundir: Path | None = None
    groups: list[Path] = []
    while time.monotonic() < deadline:
        dirs = [d for d in runs.iterdir() if d.name.startswith("patchbench-")]
        groups = [
            g
            for parent in run_cgroup_parents()
            for g in parent.glob(f"patchbench-{proc.pid}-*")
            if g.is_dir()
        ]
        sandboxed = [c for c in _children_of(proc.pid)]
        if dirs and sandboxed and (groups or not any(BwrapSandbox().cgroups)):
            rundir = dirs[0]
            break
        time.sleep(0.1)
    assert rundir is not None, "the run never started"
    time.sleep(0.5)  # let bwrap set up
    return proc, rundir, groups


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_removes_the_run_directory_and_cgroups(
    tmp_path: Path, sig: signal.Signals, started: list[subprocess.Popen[Any]]
) -> None:
    """SIGTERM left the run directory (and its tmpfs) and empty cgroups behind."""
    proc, rundir, groups = _start_sleeper(tmp_path, started)
    t0 = time.monotonic()
    proc.send_signal(sig)
    proc.wait(timeout=30)
    assert proc.returncode == -sig
    assert not rundir.exists(), f"{rundir} left behind"
    assert not any(g.exists() for g in groups), groups
    assert time.monotonic() - t0 < 30


def test_sigterm_to_patchbench_run_removes_its_run_directory(
    tmp_path: Path, started: list[subprocess.Popen[Any]]
) -> None:
    """The console entry point installs the cleanup: `patchbench run` stopped by SIGTERM mid-run."""
    rows = tmp_path / "slow.jsonl"
    row = _row(task_id="slow-cli", test_command=["bash", "-c", "sleep 120"], language="sql")
    rows.write_text(json.dumps(row) + "\n")
    runs = tmp_path / "runs"
    runs.mkdir()
    proc = subprocess.Popen(
        [PYTHON, "-m", "patchbench.cli", "run", str(rows), "--empty"],
        env={**os.environ, "PATCHBENCH_RUNS": str(runs)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        cwd=ROOT,
    )
    started.append(proc)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not (list(runs.iterdir()) and _children_of(proc.pid)):
        time.sleep(0.1)
    made = list(runs.iterdir())
    assert made, "the run never started"
    time.sleep(0.5)
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=30) == -signal.SIGTERM
    assert list(runs.iterdir()) == [], made


def test_kill_9_leftovers_are_reaped_at_the_next_start(
    tmp_path: Path, started: list[subprocess.Popen[Any]]
) -> None:
    """kill -9 cannot be caught: the next patchbench reaps what the dead one left."""
    proc, rundir, groups = _start_sleeper(tmp_path, started)
    proc.kill()
    proc.wait(timeout=30)
    time.sleep(0.5)
    assert rundir.exists(), "nothing was left behind: this test would prove nothing"
    removed = reap_stale(tmp_path)
    assert str(rundir) in removed and not rundir.exists()
    assert not any(g.exists() for g in groups), groups


def test_the_reaper_leaves_live_and_kept_run_directories_alone(tmp_path: Path) -> None:
    live = open_run_dir("live", tmp_path)
    kept = open_run_dir("kept", tmp_path)
    try:
        kept.close(keep=True)
        assert reap_stale(tmp_path, cgroup_parents=[]) == []
        assert live.path.exists() and kept.path.exists()
    finally:
        live.close()
        cleanup_now()


def test_proc_1_cmdline_shows_no_host_path() -> None:
    """/proc/1/cmdline in the sandbox was bwrap's argv, with the run directory's host paths."""
    v = pb.run(
        tap_task("tr '\\0' ' ' < /proc/1/cmdline; echo; echo 1..1; echo ok 1 - a", f2p=("a",)),
        Candidate.empty(),
    )
    first = v.stdout_tail.splitlines()[0]
    assert "bwrap" in first, first  # pid 1 is bwrap's init, read for real
    assert "patchbench-" not in first and "/tmp" not in first and "--bind" not in first, first


if __name__ == "__main__":  # a planted-report case, graded in this child process
    print(json.dumps(grade_case(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else None)))
