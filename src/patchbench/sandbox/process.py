"""The opt-out backend: a plain subprocess, no isolation. Only when asked for, with a loud warning."""

from __future__ import annotations

import logging
import os
import shutil

from ..errors import SandboxError
from ._base import Bind, ExecRequest, ExecResult, Guarantees, Sandbox, run_captured

log = logging.getLogger(__name__)

WARNING = (
    "SANDBOX DISABLED (--sandbox none): test commands run as plain subprocesses with your privileges, "
    "your network and your files. Only use this for code you trust."
)


class ProcessSandbox(Sandbox):
    """Plain subprocess: a new session, rlimits, timeout and capped output; nothing else.

    Binds are not mounted: the command sees every path at its host location (``path(bind)`` returns the
    host path), so callers must build command lines through :meth:`Sandbox.path`.
    """

    name = "none"
    guarantees = Guarantees(
        no_network=False,
        read_only_system=False,
        unprivileged=False,
        kills_escapees=False,
        memory_limit=True,
        process_limit=False,
    )
    mounts = False
    _warned = False

    def path(self, bind: Bind) -> str:
        return str(bind.src)

    def check(self) -> None:
        if shutil.which("prlimit") is None:
            raise SandboxError("prlimit is not installed (Debian package util-linux)")

    def exec(self, req: ExecRequest) -> ExecResult:
        if not ProcessSandbox._warned:
            log.warning(WARNING)
            ProcessSandbox._warned = True
        self.check()
        binds = {b.dst: str(b.src) for b in req.binds}
        cwd = req.cwd
        for dst, src in sorted(binds.items(), key=lambda kv: -len(kv[0])):
            if cwd == dst or cwd.startswith(dst.rstrip("/") + "/"):
                cwd = src + cwd[len(dst) :]
                break
        env = {"HOME": os.environ.get("HOME", "/tmp"), "LANG": "C.UTF-8", **req.env}
        limits = req.limits
        argv = [
            "prlimit",
            "--core=0",
            f"--as={limits.memory_bytes}",
            f"--fsize={limits.file_size_bytes}",
            "--",
            *req.argv,
        ]
        env.setdefault("PATH", "/usr/local/bin:/usr/bin:/bin")
        return run_captured(argv, limits=limits, env=env, cwd=cwd, stdin=req.stdin)
