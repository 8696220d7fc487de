"""The sandbox interface: run one command with binds, a cleared environment and limits."""

from __future__ import annotations

import contextlib
import math
import os
import signal
import subprocess
import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, ClassVar

from ..errors import SandboxError
from ..lifecycle import track_process_group, untrack_process_group


@dataclass(frozen=True)
class Bind:
    """A host path made visible in the sandbox.

    Attributes:
        src: the host path.
        dst: where the command sees it (backends without a mount namespace use ``src``).
        writable: whether the command may write there.
        give: for a writable bind, whether the run's uid is given the files (default). False keeps them
            root's: with a sticky, world-writable directory the run can add files but not change, replace
            or delete the ones already there (hidden tests a verifier reads).
    """

    src: Path
    dst: str
    writable: bool = False
    give: bool = True


@dataclass(frozen=True)
class Limits:
    """Resource limits for one command.

    Attributes:
        timeout_s: wall-clock limit; every process the command started is killed when it runs out.
        memory_bytes: memory limit (cgroup v1 memory controller when writable, RLIMIT_AS otherwise).
        max_processes: process/thread limit (cgroup v1 pids controller when writable, RLIMIT_NPROC otherwise).
        output_bytes: stdout and stderr are each kept up to this many bytes (head and tail).
        kill_output_bytes: a command that writes more than this in total is killed (an output flood).
        file_size_bytes: RLIMIT_FSIZE, the largest file the command may write.
    """

    timeout_s: float = 600.0
    memory_bytes: int = 4 * 2**30
    max_processes: int = 512
    output_bytes: int = 256 * 2**10
    kill_output_bytes: int = 64 * 2**20
    file_size_bytes: int = 1 * 2**30


@dataclass(frozen=True)
class ExecResult:
    """What one sandboxed command did.

    Attributes:
        exit_code: the command's exit code, or None when it was killed (timeout, output flood, signal).
        signal: the signal that ended it, when one did.
        timed_out: the wall-clock limit ran out.
        output_flood: the command was killed for writing more than ``kill_output_bytes``.
        memory_exceeded: the memory limit was hit (known only where cgroups are used).
        stdout: standard output, at most ``output_bytes`` (head and tail kept when longer).
        stderr: standard error, likewise.
        truncated: some output was dropped.
        stdout_truncated: the middle of standard output was dropped (what is left is its head and tail).
        stderr_truncated: likewise for standard error.
        duration_s: wall-clock time.
        uid: the unprivileged uid the command ran as, when the backend dropped to one (files it wrote
            are owned by it).
    """

    exit_code: int | None
    signal: int | None = None
    timed_out: bool = False
    output_flood: bool = False
    memory_exceeded: bool = False
    stdout: bytes = b""
    stderr: bytes = b""
    truncated: bool = False
    duration_s: float = 0.0
    uid: int | None = None
    stdout_truncated: bool = False
    stderr_truncated: bool = False

    def text(self, stream: str = "stdout") -> str:
        """``stdout`` or ``stderr`` decoded as UTF-8 with replacement."""
        data = self.stdout if stream == "stdout" else self.stderr
        return data.decode("utf-8", errors="replace")


@dataclass(frozen=True)
class Guarantees:
    """What a backend promises; the conformance suite checks every promise a backend makes."""

    no_network: bool
    read_only_system: bool
    unprivileged: bool
    kills_escapees: bool
    memory_limit: bool
    process_limit: bool


@dataclass
class ExecRequest:
    """One command to run.

    Attributes:
        argv: the command; argv[0] is looked up on the sandbox PATH.
        cwd: the directory (as the command sees it) to start in.
        binds: host paths to expose.
        env: the whole environment (the sandbox starts from an empty one).
        limits: resource limits.
        stdin: bytes fed to standard input (none by default).
        network: keep the host network (setup phase only: trusted commands that install dependencies).
        as_root: do not drop privileges (setup phase only; untrusted code never runs this way).
    """

    argv: Sequence[str]
    cwd: str
    binds: Sequence[Bind] = ()
    env: dict[str, str] = field(default_factory=dict)
    limits: Limits = field(default_factory=Limits)
    stdin: bytes | None = None
    network: bool = False
    as_root: bool = False


class Sandbox(ABC):
    """A way to run untrusted commands. Backends register by ``name``."""

    name: ClassVar[str] = ""
    guarantees: ClassVar[Guarantees]
    #: Whether binds are real mounts at ``dst`` (False: the command sees host paths).
    mounts: ClassVar[bool] = True

    @abstractmethod
    def exec(self, req: ExecRequest) -> ExecResult:
        """Run ``req`` to completion within its limits.

        Raises:
            SandboxError: the sandbox itself could not be set up or failed; never raised because the
                command failed.
        """

    def path(self, bind: Bind) -> str:
        """Where the command sees ``bind``."""
        return bind.dst

    @abstractmethod
    def check(self) -> None:
        """Verify the backend can run here (binaries present, permissions).

        Raises:
            SandboxError: with a message saying what to install or change.
        """


class _Capture:
    """Reads one pipe to EOF, keeping a head and a tail of at most ``keep`` bytes in all.

    Every reader adds to one shared byte count; past ``kill_after`` bytes ``on_flood`` is called once.
    """

    def __init__(self, pipe: IO[bytes], keep: int, total: _FloodGuard) -> None:
        self._pipe = pipe
        self._keep = keep
        self._head = bytearray()
        self._tail = bytearray()
        self.dropped = 0
        self._total = total
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        half = self._keep // 2
        while True:
            try:
                chunk = self._pipe.read1(65536)  # type: ignore[attr-defined]  # BufferedReader
            except (OSError, ValueError):
                break
            if not chunk:
                break
            self._total.add(len(chunk))
            room = half - len(self._head)
            if room > 0:
                self._head += chunk[:room]
                chunk = chunk[room:]
            if chunk:
                self._tail += chunk
                if len(self._tail) > half:
                    self.dropped += len(self._tail) - half
                    del self._tail[: len(self._tail) - half]

    def value(self) -> bytes:
        if self.dropped:
            marker = f"\n[... {self.dropped} bytes dropped by patchbench ...]\n".encode()
            return bytes(self._head) + marker + bytes(self._tail)
        return bytes(self._head) + bytes(self._tail)


class _FloodGuard:
    """Counts output bytes across streams and kills the process group once, past the limit."""

    def __init__(self, limit: int, kill: Callable[[], None]) -> None:
        self._limit = limit
        self._kill = kill
        self._n = 0
        self._lock = threading.Lock()
        self.tripped = False

    def add(self, n: int) -> None:
        with self._lock:
            self._n += n
            if self._n > self._limit and not self.tripped:
                self.tripped = True
                self._kill()


def run_captured(
    argv: Sequence[str],
    *,
    limits: Limits,
    env: dict[str, str] | None = None,
    cwd: str | None = None,
    stdin: bytes | None = None,
    pass_fds: Sequence[int] = (),
    kill: Callable[[int], None] | None = None,
) -> ExecResult:
    """Run ``argv`` in a new session with a wall-clock limit and capped, drained output.

    On timeout or output flood the process group is killed with SIGKILL, and ``kill(pid)`` is called
    first when given (backends that need more than killpg, like pid-namespace teardown, hook in there).

    Raises:
        SandboxError: ``argv[0]`` could not be started.
    """
    start = time.monotonic()
    try:
        proc = subprocess.Popen(
            list(argv),
            stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
            cwd=cwd,
            start_new_session=True,
            pass_fds=tuple(pass_fds),
            close_fds=True,
        )
    except OSError as e:
        raise SandboxError(f"cannot start {argv[0]!r}: {e.strerror or e}") from e
    track_process_group(proc.pid)  # killed by the CLI's signal cleanup if patchbench is stopped

    def stop() -> None:
        if kill is not None:
            kill(proc.pid)
        _kill_group(proc.pid)

    guard = _FloodGuard(limits.kill_output_bytes, stop)
    assert proc.stdout is not None and proc.stderr is not None
    out = _Capture(proc.stdout, limits.output_bytes, guard)
    err = _Capture(proc.stderr, limits.output_bytes, guard)
    if stdin is not None and proc.stdin is not None:
        try:
            proc.stdin.write(stdin)
            proc.stdin.close()
        except OSError:
            pass
    # A timer kills at the deadline and the main thread blocks in waitpid: Popen.wait(timeout=...) polls
    # with sleeps of up to 50 ms, which would be the largest part of the harness overhead.
    expired = threading.Event()

    def on_deadline() -> None:
        expired.set()
        stop()

    timer = threading.Timer(_timer_seconds(limits.timeout_s), on_deadline)
    timer.daemon = True
    timer.start()
    try:
        proc.wait()
    finally:
        timer.cancel()
    timed_out = expired.is_set() and not guard.tripped
    # Children may still hold the pipes open (the direct child exited, its group did not): end them
    # before draining, so a background process cannot keep the run alive or write after it.
    _kill_group(proc.pid)
    untrack_process_group(proc.pid)
    out.thread.join(timeout=10)
    err.thread.join(timeout=10)
    proc.stdout.close()
    proc.stderr.close()
    rc = proc.returncode
    sig = -rc if rc is not None and rc < 0 else None
    killed = timed_out or guard.tripped
    return ExecResult(
        exit_code=None if (killed or sig is not None) else rc,
        signal=int(signal.SIGKILL) if killed else sig,
        timed_out=timed_out,
        output_flood=guard.tripped and not timed_out,
        stdout=out.value(),
        stderr=err.value(),
        truncated=bool(out.dropped or err.dropped),
        duration_s=time.monotonic() - start,
        stdout_truncated=bool(out.dropped),
        stderr_truncated=bool(err.dropped),
    )


#: The longest wall-clock limit the kill timer is set to (7 days): a larger, infinite or NaN limit would
#: overflow ``threading.Timer`` (``1e300``: OverflowError in the timer thread) and leave the run unbounded.
MAX_TIMER_S = 7 * 86_400.0


def _timer_seconds(timeout_s: float) -> float:
    """``timeout_s`` as a delay the kill timer can always wait: NaN, infinite or huge values are capped."""
    if not math.isfinite(timeout_s) or timeout_s > MAX_TIMER_S:
        return MAX_TIMER_S
    return max(0.0, timeout_s)


def _kill_group(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)
