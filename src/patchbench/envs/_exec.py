"""The one way patchbench runs a command over a task's files: in the caller's sandbox, in an environment.

Every client (the harness's test commands and script verifiers, a Harbor solution, repository setup
commands, the Dockerfile replay, the repair collector, the Rust pre-build) calls :func:`exec_in_env`, so
PATH, the environment's variables, its read-only paths and its prelude are assembled in one place
(:func:`env_variables` for the variables) and nothing builds an :class:`~patchbench.sandbox.ExecRequest`
of its own. There is no host fallback here: the sandbox is the caller's, and a missing sandbox backend is
the caller's :class:`~patchbench.errors.SandboxError` (an infrastructure error), never an unconfined run.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ..sandbox import Bind, ExecRequest, ExecResult, Limits, Sandbox
from ._base import Prepared

__all__ = ["BASE_PATH", "env_variables", "exec_in_env"]

#: The system's part of every PATH, after the environment's own directories.
BASE_PATH = "/usr/local/bin:/usr/bin:/bin"


def env_variables(
    env: Prepared | None,
    *,
    path_before: Sequence[str] = (),
    path_after: Sequence[str] = (),
    extra: Mapping[str, str] | None = None,
) -> dict[str, str]:
    """A command's variables: ``PATH`` (``path_before``, the environment's directories, ``path_after``,
    then :data:`BASE_PATH`), the environment's own variables, then ``extra`` over them."""
    path = ":".join([*path_before, *(env.path if env is not None else ()), *path_after, BASE_PATH])
    return {"PATH": path, **(env.env if env is not None else {}), **(extra or {})}


def exec_in_env(
    sandbox: Sandbox,
    argv: Sequence[str],
    *,
    env: Prepared | None,
    cwd: str,
    limits: Limits,
    binds: Sequence[Bind] = (),
    variables: Mapping[str, str] | None = None,
    prelude: bool = True,
    network: bool = False,
    as_root: bool = False,
    stdin: bytes | None = None,
) -> ExecResult:
    """Run ``argv`` in ``sandbox`` with the prepared environment ``env``.

    Args:
        sandbox: the caller's sandbox (never one chosen here).
        argv: the command.
        env: the prepared environment (None while one is being built: the caller passes its toolchain's
            paths in ``binds`` and ``variables``).
        cwd: the working directory inside the sandbox.
        limits: the run's limits.
        binds: the caller's binds; the environment's read-only paths are added after them, except those
            the caller already binds at the same place (e.g. the environment itself, writable, for setup).
        variables: the command's whole environment (default :func:`env_variables` of ``env``).
        prelude: run the environment's trusted prelude lines first (``bash -c``), as test commands do.
        network: allow the network (setup phases only).
        as_root: run as root (setup phases only).
        stdin: bytes fed to standard input.

    Raises:
        SandboxError: the sandbox failed to run the command.
    """
    command = list(argv)
    if prelude and env is not None and env.prelude:
        command = ["bash", "-c", "\n".join([*env.prelude, 'exec "$@"']), "prelude", *command]
    bound = {b.dst for b in binds}
    ro = [Bind(p, str(p)) for p in (env.ro_paths if env is not None else ()) if str(p) not in bound]
    return sandbox.exec(
        ExecRequest(
            argv=command,
            cwd=cwd,
            binds=[*binds, *ro],
            env=dict(variables) if variables is not None else env_variables(env),
            limits=limits,
            network=network,
            as_root=as_root,
            stdin=stdin,
        )
    )
