"""The default sandbox: bubblewrap, an unprivileged uid, namespaces, cgroups or rlimits.

Design (see docs/design/sandbox.md):

* bwrap runs as root *without* a user namespace, builds the mount namespace (read-only system, the
  workspace and report binds, private /tmp, /proc and /dev), new pid/net/ipc/uts namespaces, a cleared
  environment; inside, ``prlimit`` sets rlimits and ``setpriv`` drops to a throw-away unprivileged uid with
  no capabilities and no_new_privs before the untrusted command starts. Root in a user namespace could
  still read root-owned files, and RLIMIT_NPROC does not bind uid 0, hence a real uid.
* Every process of the run lives in the pid namespace: when the command ends, times out or floods its
  output, killing bwrap tears the namespace down and the kernel kills every process in it, setsid and
  double-fork escapees included.
* Memory and process limits use cgroup v1 ``memory`` and ``pids`` controllers when they are writable,
  rlimits (RLIMIT_AS, RLIMIT_NPROC) otherwise.
* ``--json-status-fd`` tells a sandbox that failed to start (an infrastructure fault) apart from a command
  that failed (the candidate's business).
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import resource
import shutil
import stat
import threading
import time
import uuid
from pathlib import Path

from ..errors import SandboxError
from ..lifecycle import cgroup_name, track_cgroup, untrack_cgroup
from ._base import ExecRequest, ExecResult, Guarantees, Limits, Sandbox, run_captured

#: Host paths bound read-only into every sandbox when they exist.
SYSTEM_RO = ("/usr", "/etc", "/opt")
#: Top-level names that are usually symlinks into /usr on merged-/usr systems.
TOP_LINKS = ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
UID_RANGE = (20000, 60000)
#: The open-file limit of a Docker container (dockerd runs with LimitNOFILE=infinity, which the kernel caps at
#: fs.nr_open, 1048576 by default; containers inherit it). Test suites sized for containers expect it.
DOCKER_NOFILE = 1048576
#: The largest private /dev/shm; it is also capped at the run's memory limit (tmpfs pages are memory).
SHM_BYTES = 512 * 2**20
#: The passwd/group name of the run's throw-away uid.
RUN_USER = "patchbench"


class _Cgroups:
    """cgroup v1 memory and pids controllers under this process's own cgroups, when writable."""

    def __init__(self) -> None:
        self.memory: Path | None = None
        self.pids: Path | None = None
        for line in Path("/proc/self/cgroup").read_text().splitlines():
            _, controllers, rel = line.split(":", 2)
            for name in controllers.split(","):
                if name in ("memory", "pids"):
                    base = Path("/sys/fs/cgroup") / name / rel.lstrip("/")
                    if _writable_dir(base):
                        setattr(self, name, base)

    def create(self, limits: Limits) -> list[Path]:
        """Make one cgroup per controller for a run; returns their paths (possibly none)."""
        made: list[Path] = []
        tag = cgroup_name()  # carries our pid and start time: the reaper knows when it is stale
        try:
            if self.memory is not None:
                d = self.memory / tag
                d.mkdir()
                made.append(d)
                track_cgroup(d)
                (d / "memory.limit_in_bytes").write_text(str(limits.memory_bytes))
                sw = d / "memory.memsw.limit_in_bytes"
                if sw.exists():
                    # swap accounting may be off; the plain limit still holds
                    with contextlib.suppress(OSError):
                        sw.write_text(str(limits.memory_bytes))
            if self.pids is not None:
                d = self.pids / tag
                d.mkdir()
                made.append(d)
                track_cgroup(d)
                (d / "pids.max").write_text(str(limits.max_processes))
        except OSError as e:
            self.destroy(made)
            raise SandboxError(f"cannot create a cgroup for the run: {e}") from e
        return made

    @staticmethod
    def memory_hit(groups: list[Path]) -> bool:
        for d in groups:
            f = d / "memory.failcnt"
            if f.exists():
                try:
                    if int(f.read_text().strip() or "0") > 0:
                        return True
                    # An OOM kill does not always count as a failure (tmpfs pages filling the limit):
                    # the OOM killer's own counter does.
                    oom = (d / "memory.oom_control").read_text().split()
                    return int(oom[oom.index("oom_kill") + 1]) > 0 if "oom_kill" in oom else False
                except (OSError, ValueError, IndexError):
                    return False
        return False

    @staticmethod
    def destroy(groups: list[Path]) -> None:
        """Kill what is left in the run's cgroups and remove them.

        Exiting processes can keep a cgroup busy for a few milliseconds after the run: the first attempt
        is made here, and what is still busy is finished by a background thread, off the run's path.
        """
        busy = [d for d in groups if not _try_remove(d)]
        if busy:
            threading.Thread(target=_remove_patiently, args=(busy,), daemon=True).start()


def _try_remove(d: Path) -> bool:
    try:
        pids = [int(p) for p in (d / "cgroup.procs").read_text().split()]
    except OSError:
        pids = []
    for pid in pids:
        with contextlib.suppress(OSError):
            os.kill(pid, 9)
    try:
        d.rmdir()
    except FileNotFoundError:
        pass
    except OSError:
        return False
    untrack_cgroup(d)
    return True


def _remove_patiently(groups: list[Path]) -> None:
    for d in groups:
        for _ in range(500):
            if _try_remove(d):
                break
            time.sleep(0.01)


def _writable_dir(p: Path) -> bool:
    if not p.is_dir():
        return False
    probe = p / f"patchbench-probe-{os.getpid()}-{uuid.uuid4().hex[:6]}"
    try:
        probe.mkdir()
        probe.rmdir()
        return True
    except OSError:
        return False


class BwrapSandbox(Sandbox):
    """bubblewrap backend (the default)."""

    name = "bwrap"
    guarantees = Guarantees(
        no_network=True,
        read_only_system=True,
        unprivileged=True,
        kills_escapees=True,
        memory_limit=True,
        process_limit=True,
    )

    def __init__(self, *, use_cgroups: bool = True) -> None:
        self._bwrap = shutil.which("bwrap")
        self._prlimit = shutil.which("prlimit")
        self._setpriv = shutil.which("setpriv")
        self._root = os.geteuid() == 0
        self._cg = _Cgroups() if (use_cgroups and self._root) else None

    @property
    def cgroups(self) -> tuple[bool, bool]:
        """Whether (memory, pids) cgroups are used."""
        if self._cg is None:
            return (False, False)
        return (self._cg.memory is not None, self._cg.pids is not None)

    def check(self) -> None:
        if self._bwrap is None:
            raise SandboxError(
                "bubblewrap is not installed: install it (Debian: apt-get install bubblewrap) "
                "or pass --sandbox none to run without isolation"
            )
        for tool, path in (("prlimit", self._prlimit), ("setpriv", self._setpriv)):
            if path is None:
                raise SandboxError(f"{tool} is not installed (Debian package util-linux)")

    def exec(self, req: ExecRequest) -> ExecResult:
        self.check()
        assert self._bwrap and self._prlimit and self._setpriv
        limits = req.limits
        uid = random.randrange(*UID_RANGE)
        mem_cg, pids_cg = self.cgroups
        groups = self._cg.create(limits) if self._cg is not None else []
        for b in req.binds:
            if b.writable and b.give and self._root and not req.as_root:
                _chown_tree(b.src, uid)
        status_r, status_w = os.pipe()
        # bwrap's options (every host path of the binds) go through a memfd read with --args: bwrap's
        # own argv, which the sandbox sees as /proc/1/cmdline, is then `bwrap --args N -- COMMAND`.
        args_fd = os.memfd_create("patchbench-bwrap-args", os.MFD_CLOEXEC)
        files: dict[str, int] = {}
        try:
            files = _identity_files(req, uid, root=self._root)
            options, command = self._argv(req, uid, status_w, mem_cg=mem_cg, pids_cg=pids_cg, files=files)
            os.write(args_fd, b"".join(os.fsencode(a) + b"\0" for a in options[1:]))
            os.lseek(args_fd, 0, os.SEEK_SET)
            argv = [options[0], "--args", str(args_fd), "--", *command]
            if groups:
                enter = "; ".join(f'echo $$ > "{g}/cgroup.procs"' for g in groups)
                argv = ["/bin/sh", "-c", f'{enter} && exec "$@"', "sh", *argv]
            result = run_captured(
                argv,
                limits=limits,
                env={"PATH": "/usr/bin:/bin"},
                stdin=req.stdin,
                pass_fds=(status_w, args_fd, *files.values()),
            )
        finally:
            os.close(args_fd)
            os.close(status_w)
            for fd in files.values():
                os.close(fd)
            status = _read_all(status_r)
            memory_hit = _Cgroups.memory_hit(groups)
            if self._cg is not None:
                self._cg.destroy(groups)
        started = '"child-pid"' in status
        if not started and not result.timed_out:
            msg = " ".join(result.text("stderr").split())[:400] or f"exit code {result.exit_code}"
            raise SandboxError(f"bubblewrap could not start the sandbox: {msg}")
        exit_code = result.exit_code
        reported = False
        for line in status.splitlines():
            try:
                obj = json.loads(line)
            except json.JSONDecodeError:
                continue
            if isinstance(obj, dict) and "exit-code" in obj:
                reported = True
                if exit_code is not None:
                    exit_code = int(obj["exit-code"])
        if (
            not reported
            and result.exit_code == 1
            and not (result.timed_out or result.output_flood or memory_hit)
        ):
            # bwrap started its child but exited 1 without the command's exit code: it died setting up
            # the sandbox (a bind, /proc, chdir) before it could exec prlimit. The harness makes every
            # mount point and the working directory itself, so the candidate cannot cause this.
            msg = " ".join(result.text("stderr").split())[:400]
            raise SandboxError(f"bubblewrap could not set up the sandbox: {msg or 'exit code 1'}")
        dropped = uid if (self._root and not req.as_root) else None
        return ExecResult(
            **{**result.__dict__, "exit_code": exit_code, "memory_exceeded": memory_hit, "uid": dropped}
        )

    def _argv(
        self,
        req: ExecRequest,
        uid: int,
        status_fd: int,
        *,
        mem_cg: bool,
        pids_cg: bool,
        files: dict[str, int] | None = None,
    ) -> tuple[list[str], list[str]]:
        """(bwrap and its options, the command after ``--``)."""
        assert self._bwrap and self._prlimit and self._setpriv
        limits = req.limits
        a: list[str] = [self._bwrap]
        a += ["--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try"]
        if not req.network:
            a += ["--unshare-net"]
        if not self._root:
            a += ["--unshare-user"]
        a += ["--die-with-parent", "--new-session", "--hostname", "sandbox"]
        a += ["--json-status-fd", str(status_fd)]
        for top in TOP_LINKS:
            p = Path(top)
            if p.is_symlink():
                a += ["--symlink", os.readlink(p), top]
            elif p.is_dir():
                a += ["--ro-bind", top, top]
        for d in SYSTEM_RO:
            if Path(d).is_dir():
                a += ["--ro-bind", d, d]
        a += ["--proc", "/proc", "--dev", "/dev"]
        # A container's /dev/shm: private, writable by everyone, size-limited. bwrap's --dev leaves it a
        # root-owned directory, where POSIX semaphores (every multiprocessing lock and queue) cannot be made.
        a += ["--perms", "1777", "--size", str(min(limits.memory_bytes, SHM_BYTES)), "--tmpfs", "/dev/shm"]
        a += ["--perms", "1777", "--size", str(min(limits.memory_bytes, 2**30)), "--tmpfs", "/tmp"]
        # /etc/passwd, /etc/group (the run's uid has an entry) and /etc/hosts (the hostname resolves),
        # copied from memory files over the read-only /etc.
        for dst, fd in (files or {}).items():
            a += ["--perms", "0644", "--ro-bind-data", str(fd), dst]
        made: set[str] = {"/", "/usr", "/etc", "/opt", "/proc", "/dev", "/tmp", *TOP_LINKS}
        for b in sorted(req.binds, key=lambda x: x.dst.count("/")):
            for parent in _parents(b.dst):
                if parent not in made:
                    a += ["--perms", "0755", "--dir", parent]
                    made.add(parent)
            a += ["--bind" if b.writable else "--ro-bind", str(b.src), b.dst]
            made.add(b.dst)
        a += ["--chdir", req.cwd, "--clearenv"]
        env = {"HOME": "/tmp", "TMPDIR": "/tmp", "LANG": "C.UTF-8", **req.env}
        for k, v in env.items():
            a += ["--setenv", k, v]
        nofile = nofile_limit()
        options, a = (
            a,
            [
                self._prlimit,
                "--core=0",
                f"--fsize={limits.file_size_bytes}",
                f"--nofile={nofile}:{nofile}",
            ],
        )
        if not mem_cg:
            a += [f"--as={limits.memory_bytes}"]
        if not pids_cg:
            a += [f"--nproc={limits.max_processes}"]
        a += ["--"]
        if self._root and not req.as_root:
            a += [
                self._setpriv,
                f"--reuid={uid}",
                f"--regid={uid}",
                "--clear-groups",
                "--no-new-privs",
                "--inh-caps=-all",
                "--",
            ]
        a += list(req.argv)
        return options, a


def nofile_limit() -> int:
    """The open-file limit (soft and hard) of a run: Docker's, within what this process may grant.

    Raising a hard limit needs CAP_SYS_RESOURCE (prlimit runs before setpriv drops it, but a host
    container may not have it at all); without it the limit is this process's hard limit, so a soft limit
    of 1024 under a higher hard one is still lifted.
    """
    try:
        nr_open = int(Path("/proc/sys/fs/nr_open").read_text().strip())
    except (OSError, ValueError):
        nr_open = DOCKER_NOFILE
    ceiling = min(DOCKER_NOFILE, nr_open)
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    if not _has_cap(_CAP_SYS_RESOURCE) and hard != resource.RLIM_INFINITY:
        ceiling = min(ceiling, hard)
    return ceiling


_CAP_SYS_RESOURCE = 24


def _has_cap(bit: int) -> bool:
    """Whether this process has capability ``bit`` in its effective set."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("CapEff:"):
                return bool(int(line.split()[1], 16) >> bit & 1)
    except (OSError, ValueError, IndexError):
        pass
    return False


def _memfd(name: str, data: bytes) -> int:
    """A memory file holding ``data``, positioned at its start (bwrap reads it to the end)."""
    fd = os.memfd_create(name, 0)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        os.lseek(fd, 0, os.SEEK_SET)
    except OSError:
        os.close(fd)
        raise
    return fd


def _read_etc(name: str) -> str:
    try:
        text = Path("/etc", name).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""
    return text if not text or text.endswith("\n") else text + "\n"


def _identity_files(req: ExecRequest, uid: int, *, root: bool) -> dict[str, int]:
    """Memory files for /etc/passwd, /etc/group and /etc/hosts as the run sees them.

    The host's entries are kept. The run's uid, when it is a throw-away one (root drops to it), gets a
    passwd and a group entry (name ``patchbench``, home ``$HOME``), so ``pwd.getpwuid(os.getuid())``,
    ``getpass.getuser()`` and ``~`` work as in a container, where the user is in the image's passwd. The
    hostname ``sandbox`` maps to a loopback address, as a container's own name resolves. The caller closes
    the descriptors.
    """
    hosts = _read_etc("hosts") + "127.0.1.1\tsandbox\n"
    files = {"/etc/hosts": hosts.encode()}
    if root and not req.as_root:
        home = {"HOME": "/tmp", **req.env}["HOME"]
        passwd, group = _read_etc("passwd"), _read_etc("group")
        names = {ln.split(":", 1)[0] for ln in passwd.splitlines()}
        name = RUN_USER if RUN_USER not in names else f"{RUN_USER}-{uid}"
        files["/etc/passwd"] = (passwd + f"{name}:x:{uid}:{uid}:patchbench run:{home}:/bin/sh\n").encode()
        files["/etc/group"] = (group + f"{name}:x:{uid}:\n").encode()
    fds: dict[str, int] = {}
    try:
        for dst, data in files.items():
            fds[dst] = _memfd("patchbench" + dst.replace("/", "-"), data)
    except OSError as e:
        for fd in fds.values():
            os.close(fd)
        raise SandboxError(f"cannot prepare {', '.join(files)} for the sandbox: {e}") from e
    return fds


def _parents(dst: str) -> list[str]:
    parts = [p for p in dst.split("/") if p]
    return ["/" + "/".join(parts[:i]) for i in range(1, len(parts))]


def _chown_tree(root: Path, uid: int) -> None:
    """Give the run's uid a writable bind: every directory, and every file not shared with a cache.

    A regular file with other hard links belongs to a cache (a repository checkout, see
    ``patchbench.workspace.copy_tree``): it stays root's, so the run can replace it but never modify the
    cached copy in place.
    """
    os.chown(root, uid, uid, follow_symlinks=False)
    for dirpath, dirnames, filenames in os.walk(root):
        for name in (*dirnames, *filenames):
            p = os.path.join(dirpath, name)
            # What an earlier command left (a path too deep to name, an entry gone) stays as it is: the
            # run just cannot write there, and it is not a fault of the sandbox.
            with contextlib.suppress(OSError):
                st = os.lstat(p)
                if stat.S_ISREG(st.st_mode) and st.st_nlink > 1:
                    continue
                os.chown(p, uid, uid, follow_symlinks=False)


def _read_all(fd: int) -> str:
    chunks: list[bytes] = []
    try:
        os.set_blocking(fd, False)
        while True:
            try:
                b = os.read(fd, 65536)
            except BlockingIOError:
                break
            if not b:
                break
            chunks.append(b)
    finally:
        os.close(fd)
    return b"".join(chunks).decode("utf-8", errors="replace")
