"""Container parity: what a test suite finds in a container (or on a plain machine), it finds in the sandbox.

Regression (issue 11): a real project's tests that use ``multiprocessing`` (a ``Pool``, an ``RLock``, the
``spawn`` context) failed in the sandbox with ``PermissionError: [Errno 13]``: POSIX semaphores live in
``/dev/shm``, which bubblewrap's minimal ``/dev`` makes a root-owned directory the run's uid cannot write.
The run's random uid had no passwd entry either (``pwd.getpwuid(os.getuid())`` and ``getpass.getuser()``
raised ``KeyError``), and the open-file limit was whatever the host process had. Each check below runs a
small Python program in the sandbox, as an untrusted test run is (unprivileged uid, no network), and
prints ``PARITY-OK`` only when the feature works as it does in a container.
"""

from __future__ import annotations

import resource
import textwrap
from pathlib import Path

import pytest

from patchbench.sandbox import BACKENDS, Bind, BwrapSandbox, ExecRequest, Limits, Sandbox

PYTHON = "/usr/bin/python3"  # the system interpreter: visible in every sandbox (read-only /usr)


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


def run_py(sb: Sandbox, ws: Path, code: str, *args: str, timeout: float = 120) -> tuple[int | None, str]:
    """Run ``code`` as ``/workspace/probe.py`` (an importable main module, as ``spawn`` needs)."""
    if not Path(PYTHON).exists():
        pytest.skip(f"{PYTHON} is not installed")
    (ws / "probe.py").write_text(textwrap.dedent(code))
    r = sb.exec(
        ExecRequest(
            argv=[PYTHON, "probe.py", *args],
            cwd="/workspace",
            binds=[Bind(ws, "/workspace", writable=True)],
            env={"PATH": "/usr/local/bin:/usr/bin:/bin"},
            limits=Limits(timeout_s=timeout),
        )
    )
    return r.exit_code, r.text("stdout") + r.text("stderr")


def ok(sb: Sandbox, ws: Path, code: str, *args: str) -> str:
    exit_code, out = run_py(sb, ws, code, *args)
    assert exit_code == 0 and "PARITY-OK" in out, out[-3000:]
    return out


MULTIPROCESSING = """
import multiprocessing as mp
import sys


def square(x):
    return x * x


def worker(lock, q, n):
    with lock:
        with lock:  # an RLock is re-entrant
            q.put(n * 10)


if __name__ == "__main__":
    ctx = mp.get_context(sys.argv[1])
    with ctx.Pool(2) as pool:
        assert pool.map(square, range(8)) == [x * x for x in range(8)]
    lock, q = ctx.RLock(), ctx.Queue()
    procs = [ctx.Process(target=worker, args=(lock, q, n)) for n in range(3)]
    for p in procs:
        p.start()
    got = sorted(q.get(timeout=60) for _ in procs)
    for p in procs:
        p.join(60)
        assert p.exitcode == 0, p.exitcode
    assert got == [0, 10, 20], got
    sem, ev = ctx.Semaphore(2), ctx.Event()
    with sem:
        ev.set()
    assert ev.is_set()
    with ctx.Manager() as manager:
        d = manager.dict(a=1)
        assert d["a"] == 1
    print("PARITY-OK")
"""


@pytest.mark.parametrize("method", ["fork", "spawn", "forkserver"])
def test_parity_multiprocessing_pool_rlock_queue(sb: Sandbox, tmp_path: Path, method: str) -> None:
    """Pool, RLock, Queue, Semaphore, Event and a Manager under each start method (needs /dev/shm)."""
    ok(sb, tmp_path, MULTIPROCESSING, method)


def test_parity_dev_shm_is_private_writable_and_size_limited(sb: Sandbox, tmp_path: Path) -> None:
    out = ok(
        sb,
        tmp_path,
        """
        import os
        from multiprocessing import shared_memory
        shm = shared_memory.SharedMemory(create=True, size=1 << 20)
        shm.buf[:5] = b"hello"
        again = shared_memory.SharedMemory(name=shm.name)
        assert bytes(again.buf[:5]) == b"hello"
        again.close(); shm.close(); shm.unlink()
        st = os.statvfs("/dev/shm")
        print("shm-bytes", st.f_blocks * st.f_frsize)
        print("PARITY-OK")
        """,
    )
    if sb.name == "bwrap":
        size = int(next(ln for ln in out.splitlines() if ln.startswith("shm-bytes")).split()[1])
        assert 0 < size <= 2**30  # its own tmpfs, capped, not the host's /dev/shm


def test_parity_pty_openpty(sb: Sandbox, tmp_path: Path) -> None:
    ok(
        sb,
        tmp_path,
        """
        import os, pty
        master, slave = pty.openpty()
        assert os.isatty(slave) and os.ttyname(slave).startswith("/dev/pts/")
        os.write(master, b"ping\\n")
        assert os.read(slave, 100).strip() == b"ping"
        pid, fd = pty.fork()
        if pid == 0:
            os.write(1, b"child on a tty\\n")
            os._exit(0)
        data = b""
        while True:
            try:
                chunk = os.read(fd, 100)
            except OSError:
                break
            if not chunk:
                break
            data += chunk
        os.waitpid(pid, 0)
        assert b"child on a tty" in data, data
        print("PARITY-OK")
        """,
    )


def test_parity_socketpair_and_loopback(sb: Sandbox, tmp_path: Path) -> None:
    ok(
        sb,
        tmp_path,
        """
        import socket
        a, b = socket.socketpair()
        a.sendall(b"x"); assert b.recv(1) == b"x"
        srv = socket.socket(); srv.bind(("127.0.0.1", 0)); srv.listen()
        c = socket.create_connection(srv.getsockname(), timeout=10)
        s, _ = srv.accept(); c.sendall(b"y"); assert s.recv(1) == b"y"
        print("PARITY-OK")
        """,
    )


def test_parity_user_lookups_of_the_run_uid(sb: Sandbox, tmp_path: Path) -> None:
    """``pwd.getpwuid(os.getuid())``, ``grp.getgrgid`` and ``getpass.getuser()`` work for the run's uid."""
    ok(
        sb,
        tmp_path,
        """
        import getpass, grp, os, pwd
        pw = pwd.getpwuid(os.getuid())
        assert pw.pw_uid == os.getuid()
        assert grp.getgrgid(os.getgid()).gr_gid == os.getgid()
        assert getpass.getuser() == pw.pw_name
        assert pwd.getpwnam(pw.pw_name).pw_uid == os.getuid()
        assert os.path.expanduser("~") == os.environ["HOME"]
        print("PARITY-OK")
        """,
    )


def test_parity_home_and_tempfile_are_writable(sb: Sandbox, tmp_path: Path) -> None:
    ok(
        sb,
        tmp_path,
        """
        import os, pathlib, tempfile
        home = pathlib.Path(os.path.expanduser("~"))
        (home / ".cache" / "probe").mkdir(parents=True, exist_ok=True)
        (home / ".config-probe").write_text("x")
        fd, name = tempfile.mkstemp(); os.write(fd, b"x"); os.close(fd); os.unlink(name)
        with tempfile.TemporaryDirectory() as d:
            pathlib.Path(d, "f").write_text("y")
        with tempfile.NamedTemporaryFile() as f:
            f.write(b"z")
        print("PARITY-OK")
        """,
    )


def test_parity_locale_is_utf8(sb: Sandbox, tmp_path: Path) -> None:
    ok(
        sb,
        tmp_path,
        """
        import locale, sys
        locale.setlocale(locale.LC_ALL, "")
        assert locale.getpreferredencoding(False).upper().replace("-", "") == "UTF8"
        assert sys.getfilesystemencoding() == "utf-8"
        print("\\u00e9t\\u00e9")
        print("PARITY-OK")
        """,
    )


def test_parity_hostname(sb: Sandbox, tmp_path: Path) -> None:
    ok(
        sb,
        tmp_path,
        """
        import socket
        name = socket.gethostname()
        assert name
        assert socket.gethostbyname(name)  # a container resolves its own name (/etc/hosts)
        assert socket.gethostbyname("localhost") == "127.0.0.1"
        print("PARITY-OK")
        """,
    )


def test_parity_proc_self(sb: Sandbox, tmp_path: Path) -> None:
    ok(
        sb,
        tmp_path,
        """
        import os
        assert os.readlink("/proc/self/exe")
        assert os.listdir("/proc/self/fd")
        for name in ("status", "cmdline", "environ", "maps", "limits", "mountinfo", "stat", "cgroup"):
            with open(f"/proc/self/{name}", "rb") as fh:
                fh.read()
        assert os.readlink("/proc/self/cwd") == os.getcwd()
        print("PARITY-OK")
        """,
    )


def test_parity_signals(sb: Sandbox, tmp_path: Path) -> None:
    ok(
        sb,
        tmp_path,
        """
        import os, signal, subprocess, time
        got = []
        signal.signal(signal.SIGUSR1, lambda *a: got.append("usr1"))
        os.kill(os.getpid(), signal.SIGUSR1)
        signal.signal(signal.SIGALRM, lambda *a: got.append("alarm"))
        signal.setitimer(signal.ITIMER_REAL, 0.05)
        time.sleep(0.5)
        assert got == ["usr1", "alarm"], got
        p = subprocess.Popen(["sleep", "30"])
        p.terminate()
        assert p.wait(10) == -signal.SIGTERM
        print("PARITY-OK")
        """,
    )


def test_parity_rlimits_like_docker(sb: Sandbox, tmp_path: Path) -> None:
    """Open files: Docker's default (dockerd's LimitNOFILE=infinity, 1048576) where the host allows it.

    patchbench itself runs here with a soft limit of 1024 (a login shell's): the run must not inherit it.
    The ``none`` backend runs commands with patchbench's own limits, as documented, so it is not checked.
    """
    if sb.name == "none":
        pytest.skip("the none backend keeps the host process's limits")
    soft0, hard0 = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(1024, hard0), hard0))
    try:
        out = ok(
            sb,
            tmp_path,
            """
            import resource
            for name in ("RLIMIT_NOFILE", "RLIMIT_NPROC", "RLIMIT_STACK", "RLIMIT_CORE"):
                soft, hard = resource.getrlimit(getattr(resource, name))
                print(name, soft, hard)
            fds = [open("/dev/null") for _ in range(4000)]  # beyond a login shell's 1024
            print("PARITY-OK")
            """,
        )
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft0, hard0))
    if sb.name == "bwrap":  # both bwrap variants
        soft, hard = (int(x) for x in next(ln for ln in out.splitlines() if "NOFILE" in ln).split()[1:])
        nr_open = int(Path("/proc/sys/fs/nr_open").read_text())
        cap_eff = next(
            ln for ln in Path("/proc/self/status").read_text().splitlines() if ln.startswith("CapEff")
        )
        can_raise = bool(int(cap_eff.split()[1], 16) >> 24 & 1)  # CAP_SYS_RESOURCE
        # Docker's 1048576 (capped by fs.nr_open); a host without CAP_SYS_RESOURCE can give its hard limit.
        want = min(1048576, nr_open) if can_raise else min(1048576, nr_open, hard0)
        assert soft == hard == want
