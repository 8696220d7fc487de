"""Python environments: a uv virtualenv with pytest and the task's requirements, precompiled, read-only.

Why uv: ``uv venv`` takes ~0.04 s and a warm ``uv pip install`` well under a second, against ~9 s for
``python -m venv`` + pip, which is what makes a per-requirements-set cache affordable. Templates are
precompiled (``compileall``) because a read-only environment without ``.pyc`` files doubles pytest's
start-up: every run would recompile and fail to cache.

pip works in setup commands as users write them (issue 11: a venv without pip made every
``python -m pip install ...`` row ``infra_error``): pip, setuptools and wheel are installed with the
requirements (``python -m pip``, ``python setup.py develop`` and ``pip wheel`` are the real tools), and
``bin/pip``, ``bin/pip3`` and ``bin/pip3.X`` are a shim (``PIP_SHIM``) that serves ``install``,
``uninstall``, ``freeze``, ``list``, ``show`` and ``check`` with ``uv pip`` against the venv's interpreter
(an editable install ~0.6-0.9 s against ~3.5-4.6 s for pip, measured on pallets/itsdangerous), with
``--compile-bytecode`` as pip compiles. It runs the real pip instead for any other subcommand, when pip is
configured in a way uv would not read (an index, find-links... in ``PIP_*`` variables or a ``pip.conf``),
and when uv fails (an option uv does not have, say), so the semantics are pip's. The uv binary is
hard-linked into the environment so the shim finds it where setup commands run in the sandbox (a
repository's ``env_setup_cmds``).
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
#: The packaging tools every environment gets (a container's Python has them), unless the task pins its own.
PACKAGING_REQUIREMENTS = ("pip==26.3", "setuptools==84.2.1", "wheel==0.48.0")
#: Bumped when the pip shim changes, so environments holding an older one are rebuilt.
PIP_SHIM_VERSION = 1
#: Where the uv binary is linked inside an environment (not on PATH: only the shim uses it).
UV_IN_ENV = ".patchbench-uv/uv"

#: ``bin/pip``: ``uv pip`` for the subcommands uv serves with pip's semantics, the real pip otherwise.
PIP_SHIM = """#!{python}
# patchbench pip shim (version {version}): uv pip where it is faster, the real pip for the rest.
import os
import subprocess
import sys

VENV_PYTHON = {python!r}
UV = {uv!r}
UV_COMMANDS = {{"install", "uninstall", "freeze", "list", "show", "check"}}


def real_pip():
    os.execv(VENV_PYTHON, [VENV_PYTHON, "-m", "pip", *sys.argv[1:]])


# pip settings that do not change what gets installed; any other (an index, find-links, constraints...)
# is pip's business, read from pip's own configuration, which uv ignores: then pip runs.
HARMLESS = {{
    "cert", "timeout", "default-timeout", "disable-pip-version-check", "no-color", "progress-bar",
    "root-user-action", "no-input", "retries", "quiet", "verbose",
}}


def pip_settings():
    # Every pip setting from PIP_* variables and pip's configuration files, as {{key: value}}.
    import configparser

    found = {{}}
    home = os.path.expanduser("~")
    files = ["/etc/pip.conf", "/etc/xdg/pip/pip.conf", os.path.join(home, ".pip", "pip.conf")]
    files += [os.path.join(home, ".config", "pip", "pip.conf"), os.path.join(sys.prefix, "pip.conf")]
    files += [os.environ.get("PIP_CONFIG_FILE", "")]
    for path in files:
        if not path or not os.path.isfile(path):
            continue
        parser = configparser.RawConfigParser()
        try:
            parser.read(path)
        except (OSError, configparser.Error):
            found["unreadable " + path] = ""
            continue
        for section in parser.sections():
            for key, value in parser.items(section):
                found[key.replace("_", "-")] = value
    for key, value in os.environ.items():
        if key.startswith("PIP_") and key != "PIP_CONFIG_FILE":
            found[key[4:].lower().replace("_", "-")] = value
    return found


args = sys.argv[1:]
if not args or args[0] not in UV_COMMANDS or not UV or not os.access(UV, os.X_OK):
    real_pip()
settings = pip_settings()
if any(k not in HARMLESS for k in settings):
    real_pip()
cmd, rest = args[0], args[1:]
extra = ["--compile-bytecode"] if cmd == "install" else []
rest = [a for a in rest if not (cmd == "uninstall" and a in ("-y", "--yes"))]  # uv never prompts
env = dict(os.environ, UV_LINK_MODE=os.environ.get("UV_LINK_MODE", "copy"), UV_PYTHON_DOWNLOADS="never")
if settings.get("cert"):
    env.setdefault("SSL_CERT_FILE", settings["cert"])
try:
    code = subprocess.call([UV, "pip", cmd, "--python", VENV_PYTHON, *extra, *rest], env=env)
except OSError:
    code = -1
if code != 0:
    sys.stderr.write("patchbench pip shim: uv pip %s failed (exit %s); running pip\\n" % (cmd, code))
    sys.stderr.flush()
    real_pip()
sys.exit(0)
"""

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
        for req in (PYTEST_REQUIREMENT, *PACKAGING_REQUIREMENTS):
            name = req.split("==")[0]
            if not any(re.match(rf"^\s*{name}\b(?![-_])", r, re.IGNORECASE) for r in reqs):
                reqs.append(req)
        return {
            "interpreter": str(interp),
            "requirements": sorted(reqs),
            "setup_cmds": list(spec.setup_cmds),
            "pip_shim": PIP_SHIM_VERSION,
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
        install_pip_shim(venv, _link_uv(uv, dest / UV_IN_ENV))
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


def uv_binary(found: str) -> Path | None:
    """The uv executable itself, where ``found`` (from PATH) may be a wrapper script (a pyenv shim).

    The pip shim runs it inside the sandbox, where a wrapper's own dependencies (pyenv) are not visible.
    """
    cands = [Path(found)]
    pyenv = shutil.which("pyenv")
    if pyenv:
        r = subprocess.run([pyenv, "which", "uv"], capture_output=True, text=True, check=False)
        if r.returncode == 0 and r.stdout.strip():
            cands.append(Path(r.stdout.strip()))
    for cand in cands:
        try:
            real = cand.resolve()
            with real.open("rb") as fh:
                if fh.read(4) == b"\x7fELF":
                    return real
        except OSError:
            continue
    return None


def _link_uv(uv: str, dest: Path) -> Path | None:
    """Hard-link (else copy) the uv binary into the environment; None when it cannot be found."""
    real = uv_binary(uv)
    if real is None:
        return None
    dest.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.link(real, dest)
    except OSError:
        try:
            shutil.copy2(real, dest)
        except OSError:
            return None
    return dest


def install_pip_shim(venv: Path, uv: Path | None) -> None:
    """Replace ``pip``, ``pip3`` and ``pip3.X`` in ``venv/bin`` with the shim (see the module docstring)."""
    bindir = venv / "bin"
    text = PIP_SHIM.format(python=str(bindir / "python"), uv=str(uv) if uv else "", version=PIP_SHIM_VERSION)
    names = {"pip", "pip3", *(p.name for p in bindir.glob("pip3.*"))}
    for name in sorted(names):
        target = bindir / name
        target.unlink(missing_ok=True)
        target.write_text(text)
        target.chmod(0o755)


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
