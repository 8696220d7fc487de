"""What a run leaves on the host, its disk quota, and how it is removed on every exit path.

* **Run directories** (workspace, reports, logs) are made under :func:`runs_root` and, when patchbench
  runs as root, each is a private tmpfs mounted with ``size=`` (:func:`disk_quota`, default 2 GiB): the
  sandboxed code cannot fill the host's disk through its writable binds (six 1 GiB files under the
  per-file cap). :meth:`RunDir.full` tells the harness the quota was hit, which the verdict counts.
* **Cleanup on SIGTERM/SIGINT/SIGHUP** (:func:`install_signal_cleanup`, called by the CLI): every live
  sandbox process group is killed, then every live cgroup and run directory removed, then the process
  dies of the signal as it would have.
* **A reaper at the next start** (:func:`reap_stale`, run once per process by the harness) removes the run
  directories and cgroups of patchbench processes that are gone (``kill -9``): each carries its owner's
  pid and start time, so a live run of another patchbench process is never touched, even after pid reuse.
"""

from __future__ import annotations

import contextlib
import ctypes
import logging
import os
import re
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from types import FrameType

from .errors import InputError

log = logging.getLogger("patchbench.lifecycle")

#: The disk quota of one run (workspace, reports, logs together) unless ``PATCHBENCH_DISK_QUOTA`` says
#: otherwise. The sandbox's private /tmp is a tmpfs of its own (at most 1 GiB, see sandbox/bwrap.py).
DEFAULT_DISK_QUOTA = 2 * 2**30
#: One inode per this many bytes of quota (a million files for 4 GiB): an inode flood is a full disk too.
BYTES_PER_INODE = 4096
#: A run directory with less free space than this (or fewer free inodes than :data:`FULL_INODES`) after a
#: command counts as having hit its quota.
FULL_SLACK = 1 << 20
FULL_INODES = 64
#: The file in a run directory naming the patchbench process that owns it.
OWNER_FILE = ".patchbench-owner"
#: A run directory kept on purpose (``keep=True``): the reaper leaves it alone.
KEEP_FILE = ".patchbench-keep"
PREFIX = "patchbench-"

_MS_NOSUID = 2
_MS_NODEV = 4
_MNT_DETACH = 2
_SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)


def default_cache_dir() -> Path:
    """``$PATCHBENCH_CACHE``, else ``$XDG_CACHE_HOME/patchbench``, else ``~/.cache/patchbench``."""
    env = os.environ.get("PATCHBENCH_CACHE")
    if env:
        return Path(env)
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "patchbench"


def runs_root() -> Path:
    """Where run directories are made: ``$PATCHBENCH_RUNS`` or the system temp dir."""
    return Path(os.environ.get("PATCHBENCH_RUNS") or tempfile.gettempdir())


def disk_quota() -> int | None:
    """The per-run disk quota in bytes: ``$PATCHBENCH_DISK_QUOTA`` (bytes, or with a K/M/G suffix;
    ``0``/``none`` for no quota), else :data:`DEFAULT_DISK_QUOTA`.

    Raises:
        InputError: the variable is not a size.
    """
    raw = (os.environ.get("PATCHBENCH_DISK_QUOTA") or "").strip().lower()
    if not raw:
        return DEFAULT_DISK_QUOTA
    if raw in ("0", "none", "off"):
        return None
    m = re.fullmatch(r"(\d+)\s*([kmg]?)i?b?", raw)
    if not m:
        raise InputError(f"PATCHBENCH_DISK_QUOTA={raw!r} is not a size (bytes, or 512M, 4G...)")
    return int(m.group(1)) * {"": 1, "k": 2**10, "m": 2**20, "g": 2**30}[m.group(2)]


def owner_tag(pid: int | None = None) -> str:
    """``<pid>-<start time>`` of a process (this one by default): unique even when pids are reused."""
    pid = os.getpid() if pid is None else pid
    return f"{pid}-{_start_time(pid)}"


def owner_alive(tag: str) -> bool:
    """Whether the process an :func:`owner_tag` names still runs (the same process, not a reused pid)."""
    pid_s, _, start = tag.partition("-")
    if not pid_s.isdigit():
        return True  # not ours to judge: leave it
    return _start_time(int(pid_s)) == start


def _start_time(pid: int) -> str:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return ""
    # Field 22 (starttime), counted after the ")" that ends the command name (which may hold spaces).
    fields = stat[stat.rfind(")") + 2 :].split()
    return fields[19] if len(fields) > 19 else ""


# -- run directories ---------------------------------------------------------------------------------


@dataclass
class RunDir:
    """One run's directory on the host.

    Attributes:
        path: the directory.
        quota: its size limit in bytes (a private tmpfs), None when it is a plain directory.
        note: why there is no quota, when there is none although one was asked for.
    """

    path: Path
    quota: int | None = None
    note: str | None = None

    def full(self) -> bool:
        """Whether the run filled its quota (space or inodes): the sandboxed code wrote until refused."""
        if self.quota is None:
            return False
        try:
            st = os.statvfs(self.path)
        except OSError:
            return False
        return st.f_bavail * st.f_frsize < FULL_SLACK or st.f_favail < FULL_INODES

    def close(self, *, keep: bool = False) -> None:
        """Remove the directory (unmount its tmpfs first), or mark it kept for the reaper to leave."""
        _untrack_dir(self.path)
        if keep:
            with contextlib.suppress(OSError):
                if self.quota is not None and os.path.ismount(self.path):
                    # Kept for a person to look at: copied off the tmpfs into a plain directory at
                    # the same path, so that it can be removed like any other (and frees its memory).
                    plain = Path(tempfile.mkdtemp(prefix=f"{self.path.name}-", dir=self.path.parent))
                    # cp -a, not copytree: a FIFO the run left is recreated, never opened (it would block)
                    subprocess.run(
                        ["cp", "-a", f"{self.path}/.", str(plain)], capture_output=True, check=False
                    )
                    _umount(self.path)
                    self.path.rmdir()
                    plain.rename(self.path)
                (self.path / KEEP_FILE).write_text("kept\n")
            return
        _remove_run_dir(self.path)


def open_run_dir(name: str, root: Path | None = None) -> RunDir:
    """Make a run directory ``patchbench-<name>-XXXX`` under :func:`runs_root`, on a private tmpfs of
    :func:`disk_quota` bytes when this process may mount one (root); tracked for signal cleanup."""
    ensure_reaped()
    path = Path(tempfile.mkdtemp(prefix=f"{PREFIX}{name}-", dir=root or runs_root()))
    os.chmod(path, 0o755)
    rd = RunDir(path)
    quota = disk_quota()
    if quota is not None:
        err = _mount_tmpfs(path, quota)
        if err is None:
            rd.quota = quota
        else:
            rd.note = f"no disk quota on the run directory ({err})"
    os.chmod(path, 0o755)
    (path / OWNER_FILE).write_text(owner_tag() + "\n")
    _track_dir(rd)
    return rd


def _mount_tmpfs(path: Path, size: int) -> str | None:
    """Mount a tmpfs of ``size`` bytes on ``path``; None on success, else why not."""
    if os.geteuid() != 0:
        return "not running as root"
    libc = _libc()
    if libc is None:
        return "libc has no mount()"
    opts = f"size={size},nr_inodes={max(1024, size // BYTES_PER_INODE)},mode=0755".encode()
    rc = libc.mount(b"patchbench", os.fsencode(path), b"tmpfs", _MS_NOSUID | _MS_NODEV, opts)
    if rc != 0:
        return f"mounting a tmpfs failed: {os.strerror(ctypes.get_errno())}"
    return None


def _umount(path: Path) -> None:
    libc = _libc()
    if libc is not None and os.path.ismount(path):
        libc.umount2(os.fsencode(path), _MNT_DETACH)


_LIBC: ctypes.CDLL | None = None


def _libc() -> ctypes.CDLL | None:
    global _LIBC
    if _LIBC is None:
        try:
            _LIBC = ctypes.CDLL(None, use_errno=True)
        except OSError:
            return None
    return _LIBC if hasattr(_LIBC, "mount") and hasattr(_LIBC, "umount2") else None


def _remove_run_dir(path: Path) -> None:
    _umount(path)  # a tmpfs goes at once, whatever it holds
    shutil.rmtree(path, ignore_errors=True)


# -- the live registry and signal cleanup -------------------------------------------------------------

_lock = threading.Lock()
_dirs: dict[Path, RunDir] = {}
_groups: set[int] = set()
_cgroups: set[Path] = set()


def _track_dir(rd: RunDir) -> None:
    with _lock:
        _dirs[rd.path] = rd


def _untrack_dir(path: Path) -> None:
    with _lock:
        _dirs.pop(path, None)


def track_process_group(pgid: int) -> None:
    """A sandbox's process group, killed if patchbench is stopped by a signal while it runs."""
    with _lock:
        _groups.add(pgid)


def untrack_process_group(pgid: int) -> None:
    """The process group has been reaped."""
    with _lock:
        _groups.discard(pgid)


def track_cgroup(path: Path) -> None:
    """A cgroup made for a run, removed if patchbench is stopped by a signal."""
    with _lock:
        _cgroups.add(path)


def untrack_cgroup(path: Path) -> None:
    """The cgroup has been removed."""
    with _lock:
        _cgroups.discard(path)


def cleanup_now() -> None:
    """Kill every live sandbox, remove every live cgroup and run directory (signal handlers, tests)."""
    with _lock:
        groups, cgroups, dirs = set(_groups), set(_cgroups), list(_dirs)
        _groups.clear()
        _cgroups.clear()
        _dirs.clear()
    for pgid in groups:
        with contextlib.suppress(OSError):
            os.killpg(pgid, signal.SIGKILL)
    _remove_cgroups(cgroups, patience_s=2.0)
    for path in dirs:
        _remove_run_dir(path)


def install_signal_cleanup() -> None:
    """On SIGTERM, SIGINT or SIGHUP: :func:`cleanup_now`, then die of the signal as before.

    Only from the main thread (Python delivers signals there); a no-op elsewhere.
    """
    if threading.current_thread() is not threading.main_thread():
        return
    for sig in _SIGNALS:
        signal.signal(sig, _on_signal)


def _on_signal(signum: int, frame: FrameType | None) -> None:
    cleanup_now()
    signal.signal(signum, signal.SIG_DFL)
    os.kill(os.getpid(), signum)


def _remove_cgroups(cgroups: Iterable[Path], *, patience_s: float) -> list[Path]:
    """Kill what is in each cgroup and remove it, retrying while exiting processes keep it busy."""
    left = list(cgroups)
    deadline = time.monotonic() + patience_s
    while left:
        left = [d for d in left if not _try_remove_cgroup(d)]
        if not left or time.monotonic() > deadline:
            break
        time.sleep(0.01)
    return left


def _try_remove_cgroup(d: Path) -> bool:
    try:
        pids = [int(p) for p in (d / "cgroup.procs").read_text().split()]
    except (OSError, ValueError):
        pids = []
    for pid in pids:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
    try:
        d.rmdir()
        return True
    except FileNotFoundError:
        return True
    except OSError:
        return False


# -- the reaper --------------------------------------------------------------------------------------

_reaped = False
_reap_lock = threading.Lock()


def ensure_reaped() -> None:
    """Run :func:`reap_stale` once in this process (the first run directory made triggers it)."""
    global _reaped
    with _reap_lock:
        if _reaped:
            return
        _reaped = True
    try:
        removed = reap_stale()
    except OSError as e:  # a reaper problem must never stop a run
        log.warning("reaping stale run directories failed: %s", e)
        return
    if removed:
        log.info("removed %d stale run directories/cgroups: %s", len(removed), ", ".join(removed))


def reap_stale(root: Path | None = None, cgroup_parents: Iterable[Path] | None = None) -> list[str]:
    """Remove run directories and cgroups whose owning patchbench process is gone.

    Args:
        root: where run directories are (default :func:`runs_root`).
        cgroup_parents: where run cgroups are (default: this process's memory and pids cgroups).

    Returns:
        The paths removed.
    """
    removed: list[str] = []
    base = root or runs_root()
    try:
        entries = list(os.scandir(base))
    except OSError:
        entries = []
    for entry in entries:
        if not entry.name.startswith(PREFIX) or not entry.is_dir(follow_symlinks=False):
            continue
        path = Path(entry.path)
        try:
            if entry.stat(follow_symlinks=False).st_uid != os.geteuid():
                continue  # someone else's
            tag = (path / OWNER_FILE).read_text(errors="replace").strip()
        except OSError:
            continue  # no owner file: not a run directory of this version, or being made right now
        if (path / KEEP_FILE).exists() or owner_alive(tag):
            continue
        _remove_run_dir(path)
        removed.append(str(path))
    parents = list(cgroup_parents) if cgroup_parents is not None else run_cgroup_parents()
    for parent in parents:
        try:
            children = list(os.scandir(parent))
        except OSError:
            continue
        for child in children:
            m = re.fullmatch(rf"{PREFIX}(\d+-\d*)-[0-9a-f]+", child.name)
            if m is None or not child.is_dir(follow_symlinks=False) or owner_alive(m.group(1)):
                continue
            if _try_remove_cgroup(Path(child.path)):
                removed.append(child.path)
    return removed


def run_cgroup_parents() -> list[Path]:
    """This process's cgroup v1 memory and pids directories (where run cgroups are made)."""
    out: list[Path] = []
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return out
    for line in lines:
        parts = line.split(":", 2)
        if len(parts) != 3:
            continue
        for name in parts[1].split(","):
            if name in ("memory", "pids"):
                p = Path("/sys/fs/cgroup") / name / parts[2].lstrip("/")
                if p.is_dir():
                    out.append(p)
    return out


def cgroup_name() -> str:
    """A fresh name for a run's cgroup that carries this process's :func:`owner_tag`."""
    return f"{PREFIX}{owner_tag()}-{os.urandom(6).hex()}"


__all__ = [
    "DEFAULT_DISK_QUOTA",
    "RunDir",
    "cgroup_name",
    "cleanup_now",
    "disk_quota",
    "ensure_reaped",
    "install_signal_cleanup",
    "open_run_dir",
    "owner_alive",
    "owner_tag",
    "reap_stale",
    "run_cgroup_parents",
    "track_cgroup",
    "track_process_group",
    "untrack_cgroup",
    "untrack_process_group",
]
