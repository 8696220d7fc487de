"""Python environments: a uv virtualenv with pytest and the task's requirements, precompiled, read-only.

Why uv: ``uv venv`` takes ~0.04 s and a warm ``uv pip install`` well under a second, against ~9 s for
``python -m venv`` + pip, which is what makes a per-requirements-set cache affordable. Templates are
precompiled (``compileall``) because a read-only environment without ``.pyc`` files doubles pytest's
start-up: every run would recompile and fail to cache.
"""

from __future__ import annotations

import glob
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from ..errors import EnvError
from ..task import EnvSpec, Task
from ._base import Env, Prepared

#: The pytest every Python environment gets, unless the task pins its own.
PYTEST_REQUIREMENT = "pytest==9.2.0"

_IMAGE_VERSION = re.compile(r"python[:\-](\d+\.\d+)")


def wanted_version(spec: EnvSpec) -> str | None:
    """The Python version a spec asks for (``python:3.11-slim`` → ``3.11``), if any."""
    for text in (spec.image or "",):
        m = _IMAGE_VERSION.search(text)
        if m:
            return m.group(1)
    return None


def find_interpreter(version: str | None) -> tuple[Path, str | None]:
    """A local interpreter for ``version`` (any when None), and a note when it had to fall back.

    Looks at ``python<version>`` on PATH, pyenv's versions, and uv's installed Pythons; never downloads.

    Raises:
        EnvError: no interpreter at all could be found.
    """
    default = Path(getattr(sys, "_base_executable", sys.executable)).resolve()
    current = f"{sys.version_info.major}.{sys.version_info.minor}"
    if version is None or version == current:
        return default, None
    found: list[str] = []
    which = shutil.which(f"python{version}")
    if which and "shims" not in which:
        found.append(which)
    pyenv_root = os.environ.get("PYENV_ROOT", str(Path.home() / ".pyenv"))
    found += sorted(glob.glob(f"{pyenv_root}/versions/{version}.*/bin/python{version}"), reverse=True)
    uv = shutil.which("uv")
    if uv:
        r = subprocess.run(
            [uv, "python", "find", "--no-project", version],
            capture_output=True,
            text=True,
            env={**os.environ, "UV_PYTHON_DOWNLOADS": "never"},
            cwd="/",
            check=False,
        )
        if r.returncode == 0 and r.stdout.strip():
            found.append(r.stdout.strip())
    for cand in found:
        p = Path(cand)
        if p.exists() and os.access(p, os.X_OK):
            return p.resolve(), None
    return default, f"Python {version} was asked for but is not installed; using {current} ({default})"


class PythonEnv(Env):
    """uv-built, precompiled, read-only virtualenvs."""

    name = "python"
    languages = ("python",)

    def describe(self, task: Task) -> dict[str, Any]:
        spec = task.env
        interp, _ = find_interpreter(wanted_version(spec))
        reqs = sorted(set(spec.python_requirements))
        if not any(re.match(r"^\s*pytest\b(?![-_])", r) for r in reqs):
            reqs.append(PYTEST_REQUIREMENT)
        return {
            "interpreter": str(interp),
            "requirements": sorted(reqs),
            "setup_cmds": list(spec.setup_cmds),
        }

    def build(self, task: Task, dest: Path) -> None:
        spec = task.env
        uv = shutil.which("uv")
        if uv is None:
            raise EnvError("uv is not installed: pip install uv (or see https://docs.astral.sh/uv/)")
        desc = self.describe(task)
        venv = dest / "venv"
        _check([uv, "venv", "-q", "--python", desc["interpreter"], str(venv)], "uv venv")
        _check(
            [uv, "pip", "install", "-q", "--python", str(venv / "bin" / "python"), *desc["requirements"]],
            "uv pip install " + " ".join(desc["requirements"]),
        )
        # A repository task's setup commands run in its checkout (patchbench.repos.prepare_tree).
        for cmd in () if task.repository is not None else spec.setup_cmds:
            _check(
                ["bash", "-c", cmd],
                f"setup command {cmd!r}",
                env_extra={"VIRTUAL_ENV": str(venv), "PATH": f"{venv / 'bin'}:{os.environ.get('PATH', '')}"},
            )
        # Precompile: read-only templates cannot cache bytecode later.
        _check(
            [str(venv / "bin" / "python"), "-m", "compileall", "-q", "-j0", str(venv / "lib")],
            "compileall",
            ok_codes=(0, 1),
        )

    def activate(self, root: Path, task: Task) -> Prepared:
        spec = task.env
        venv = root / "venv"
        py = venv / "bin" / "python"
        ro: list[Path] = [root]
        notes: list[str] = []
        try:
            base = Path(os.path.realpath(py))
        except OSError as e:
            raise EnvError(f"environment {root} is broken ({e}); run `patchbench env prune --all`") from e
        # The venv's interpreter links into its base installation: expose that prefix read-only too.
        prefix = base.parent.parent
        if not str(prefix).startswith(("/usr/", "/etc/", "/opt/")):
            ro.append(prefix)
        _, note = find_interpreter(wanted_version(spec))
        if note:
            notes.append(note)
        return Prepared(
            key=root.name,
            root=root,
            ro_paths=tuple(ro),
            path=(str(venv / "bin"),),
            env={"VIRTUAL_ENV": str(venv), "PYTHONDONTWRITEBYTECODE": "1"},
            notes=tuple(notes),
        )


def _check(
    argv: list[str], what: str, *, ok_codes: tuple[int, ...] = (0,), env_extra: dict[str, str] | None = None
) -> None:
    env = {**os.environ, **(env_extra or {})}
    try:
        r = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=1800, check=False)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise EnvError(f"{what}: {e}") from e
    if r.returncode not in ok_codes:
        tail = " ".join((r.stderr or r.stdout).split())[-500:]
        raise EnvError(f"{what} failed (exit {r.returncode}): {tail}")
