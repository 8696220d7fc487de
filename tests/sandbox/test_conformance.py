"""The sandbox conformance suite: every backend must keep every promise its ``guarantees`` make.

A backend that does not promise something (the ``none`` backend promises almost nothing) has those checks
skipped with the reason; everything it does promise is checked for real, with real attacks.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from patchbench.sandbox import BACKENDS, Bind, BwrapSandbox, ExecRequest, Limits, Sandbox

PATH = {"PATH": "/usr/local/bin:/usr/bin:/bin"}


@pytest.fixture(params=[*sorted(BACKENDS), "bwrap-rlimits"])
def sb(request: pytest.FixtureRequest) -> Sandbox:
    """Every backend; bwrap twice: with cgroups where writable, and forced onto rlimits."""
    backend: Sandbox
    if request.param == "bwrap-rlimits":
        backend = BwrapSandbox(use_cgroups=False)
    else:
        backend = BACKENDS[request.param]()
    backend.check()
    return backend


def requires(sb: Sandbox, promise: str) -> None:
    if not getattr(sb.guarantees, promise):
        pytest.skip(f"backend {sb.name!r} does not promise {promise}")


def run(sb: Sandbox, script: str, ws: Path, **limits: float) -> tuple[int | None, str, str, object]:
    req = ExecRequest(
        argv=["bash", "-c", script],
        cwd="/workspace",
        binds=[Bind(ws, "/workspace", writable=True)],
        env=dict(PATH),
        limits=Limits(**limits),  # type: ignore[arg-type]
    )
    r = sb.exec(req)
    return r.exit_code, r.text("stdout"), r.text("stderr"), r


def test_runs_a_command_and_reports_its_exit_code(sb: Sandbox, tmp_path: Path) -> None:
    (tmp_path / "in.txt").write_text("hello")
    code, out, _, _ = run(sb, "cat in.txt; echo made > out.txt; exit 7", tmp_path)
    assert code == 7
    assert out == "hello"
    assert (tmp_path / "out.txt").read_text() == "made\n"


def test_environment_is_cleared(sb: Sandbox, tmp_path: Path) -> None:
    os.environ["PATCHBENCH_SECRET_PROBE"] = "leak"
    try:
        _, out, _, _ = run(sb, "echo ${PATCHBENCH_SECRET_PROBE:-clean}", tmp_path)
    finally:
        del os.environ["PATCHBENCH_SECRET_PROBE"]
    assert out.strip() == "clean"


def test_no_network(sb: Sandbox, tmp_path: Path) -> None:
    requires(sb, "no_network")
    _, out, _, _ = run(
        sb,
        "cat /sys/class/net/*/operstate 2>/dev/null; ls /proc/net/ >/dev/null; "
        'python3 -c "import socket; s=socket.socket(); s.settimeout(3); '
        "s.connect(('1.1.1.1', 80))\" && echo CONNECTED || echo BLOCKED",
        tmp_path,
    )
    assert "BLOCKED" in out and "CONNECTED" not in out
    # only the loopback interface exists, and it is down
    _, out, _, _ = run(
        sb, "ls /sys/class/net 2>/dev/null || ip -o link 2>/dev/null || cat /proc/net/dev", tmp_path
    )
    assert "eth" not in out


def test_no_write_outside_the_workspace(sb: Sandbox, tmp_path: Path) -> None:
    requires(sb, "read_only_system")
    victim = Path("/etc/patchbench-conformance-probe")
    _, out, _, _ = run(
        sb,
        f"echo x > {victim} && echo WROTE-ETC; echo x > /usr/pb-probe && echo WROTE-USR; "
        "echo x > /tmp/ok && echo TMP-OK",
        tmp_path,
    )
    assert "WROTE" not in out
    assert not victim.exists()
    assert "TMP-OK" in out  # a private /tmp is writable


def test_private_tmp_is_not_the_hosts(sb: Sandbox, tmp_path: Path) -> None:
    requires(sb, "read_only_system")
    marker = Path("/tmp") / f"pb-host-marker-{os.getpid()}"
    marker.write_text("host")
    try:
        _, out, _, _ = run(sb, f"cat {marker} 2>/dev/null || echo ABSENT", tmp_path)
    finally:
        marker.unlink()
    assert "ABSENT" in out


def test_root_only_files_unreadable(sb: Sandbox, tmp_path: Path) -> None:
    requires(sb, "unprivileged")
    _, out, _, _ = run(
        sb, "id -u; cat /etc/shadow >/dev/null 2>&1 && echo READ-SHADOW || echo DENIED", tmp_path
    )
    uid, verdict = out.split()
    assert uid != "0"
    assert verdict == "DENIED"


def test_infinite_loop_is_killed_at_the_timeout(sb: Sandbox, tmp_path: Path) -> None:
    t0 = time.monotonic()
    code, _, _, r = run(sb, "while :; do :; done", tmp_path, timeout_s=1.0)
    assert time.monotonic() - t0 < 10
    assert code is None and r.timed_out  # type: ignore[attr-defined]


def test_setsid_and_double_fork_escapees_are_killed(sb: Sandbox, tmp_path: Path) -> None:
    requires(sb, "kills_escapees")
    marker = tmp_path / "alive"
    script = (
        "(setsid bash -c 'sleep 2; echo escaped > /workspace/alive' &) ; "
        "( ( bash -c 'sleep 2; echo escaped >> /workspace/alive' & ) & ) ; "
        "exit 0"
    )
    code, _, _, _ = run(sb, script, tmp_path)
    assert code == 0
    time.sleep(3)
    assert not marker.exists(), "a background process outlived the run"


def test_fork_bomb_is_contained(sb: Sandbox, tmp_path: Path) -> None:
    requires(sb, "process_limit")
    t0 = time.monotonic()
    _, _, _, r = run(
        sb,
        "bomb() { bomb | bomb & }; bomb; sleep 1; echo survived",
        tmp_path,
        timeout_s=10.0,
        max_processes=64,
    )
    assert time.monotonic() - t0 < 30
    # The machine is still usable and the run ended (by itself or by the timeout).
    assert r is not None
    time.sleep(0.5)
    code2, out2, _, _ = run(sb, "echo alive", tmp_path)
    assert code2 == 0 and out2.strip() == "alive"


def test_memory_bomb_is_contained(sb: Sandbox, tmp_path: Path) -> None:
    requires(sb, "memory_limit")
    code, out, _, _ = run(
        sb,
        'python3 -c "b=[]\nwhile True: b.append(bytearray(50*2**20))" && echo FINISHED',
        tmp_path,
        timeout_s=30.0,
        memory_bytes=256 * 2**20,
    )
    assert "FINISHED" not in out
    assert code != 0


def test_output_flood_is_capped_and_killed(sb: Sandbox, tmp_path: Path) -> None:
    t0 = time.monotonic()
    code, out, _, r = run(
        sb, "yes flood", tmp_path, timeout_s=20.0, output_bytes=4096, kill_output_bytes=2**22
    )
    assert time.monotonic() - t0 < 20
    assert r.output_flood  # type: ignore[attr-defined]
    assert code is None
    assert len(out) < 8192  # head + marker + tail


def test_large_output_below_the_kill_limit_keeps_head_and_tail(sb: Sandbox, tmp_path: Path) -> None:
    code, out, _, r = run(sb, "echo FIRST; seq 1 100000; echo LAST", tmp_path, output_bytes=4096)
    assert code == 0
    assert out.startswith("FIRST") and out.rstrip().endswith("LAST")
    assert r.truncated  # type: ignore[attr-defined]
    # Which stream was cut is told apart: a parser reading stdout must know its own channel was cut.
    assert r.stdout_truncated and not r.stderr_truncated  # type: ignore[attr-defined]
