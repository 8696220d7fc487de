"""JavaScript and TypeScript environments: the task's ``node_modules`` and, for TypeScript, tsx.

Setup phase (network, outside the sandbox): the task's ``package.json`` and lockfile (read from the task,
never from a candidate) are copied into the environment and installed there with ``npm ci`` (or ``npm
install`` when there is no lockfile), with ``--ignore-scripts``: dependencies' install scripts would
run as root outside the sandbox, and a task that really needs one (a native addon) says so in its
``setup_cmds``, which run afterwards in the environment directory. A task without ``package.json``, or
whose ``package.json`` declares no dependency, gets no ``node_modules`` at all, which makes its
environment nearly free.

Test phase: ``node_modules`` is bound read-only at ``<workdir>/node_modules`` in the workspace (the
test command's working directory, where ``package.json`` is), also named by ``NODE_PATH``, and its
``.bin`` is on PATH.

TypeScript: node 20 cannot strip types, so TypeScript tasks get tsx (:data:`TSX_VERSION`, with the
esbuild it needs pinned exactly) installed in ``tools/`` and registered for every node process of the
test run through ``NODE_OPTIONS=--import=<tsx loader>`` (set by the prelude, which appends whatever a
runner put there). ``node --test tests/x.test.ts`` then just works, as does ``tsx`` on PATH. tsx
transpiles without type checking: type errors are not test failures; a task that wants ``tsc`` lists
``typescript`` in its own ``package.json``. Measured on this machine: tsx adds about 0.25 s per test
file process. A task whose ``package.json`` already brings a TypeScript loader or runner (tsx, ts-node,
ts-jest, vitest...) gets none of this.

The key holds the node and npm versions, the machine architecture, the hashes of ``package.json`` and
the lockfile, the TypeScript tool versions and the setup commands. Without a lockfile ``npm install``
resolves versions on the day the environment is built.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import platform
import posixpath
import shutil
import subprocess
from pathlib import Path
from typing import Any

from ..errors import EnvError
from ..task import FileEntry, Task
from ._base import Env, Prepared

#: The tsx that TypeScript tasks get, and the esbuild pinned under it (tsx asks for ``~0.28``).
TSX_VERSION = "4.23.15"
ESBUILD_VERSION = "0.28.2"
#: tsx's loader for ``node --import`` (its package's ``"."`` export).
TSX_LOADER = "tools/node_modules/tsx/dist/loader.mjs"

#: Bumped when the layout of a built environment changes.
LAYOUT = 1

#: Dependencies that mean the task runs TypeScript its own way (no tsx from us).
OWN_TS_TOOLS = frozenset(
    {
        "tsx",
        "ts-node",
        "ts-jest",
        "vitest",
        "@swc/jest",
        "@swc-node/register",
        "esbuild-register",
        "@esbuild-kit/esm-loader",
    }
)
_DEP_FIELDS = ("dependencies", "devDependencies", "optionalDependencies")
_LOCKFILES = ("package-lock.json", "npm-shrinkwrap.json")
_INSTALL_FLAGS = ["--no-audit", "--no-fund", "--ignore-scripts", "--loglevel=error"]
_NPM_ENV = {
    "npm_config_update_notifier": "false",
    "npm_config_fund": "false",
    "npm_config_audit": "false",
    "NO_UPDATE_NOTIFIER": "1",
}
_BASE_DIRS = ("/usr/", "/bin/", "/etc/", "/opt/")


def _task_file(task: Task, path: str) -> FileEntry | None:
    """A file of the task (hidden tests win over the workspace), never a candidate's."""
    norm = posixpath.normpath(path)
    for files in (task.hidden_tests, task.workspace):
        for f in files:
            if f.path == norm:
                return f
    return None


def _manifest_dir(task: Task) -> str:
    workdir = posixpath.normpath(task.test.workdir or ".")
    return "" if workdir == "." else workdir


def _join(rel_dir: str, name: str) -> str:
    return posixpath.join(rel_dir, name) if rel_dir else name


def package_json(task: Task) -> dict[str, Any] | None:
    """The task's ``package.json`` (in the test working directory), parsed; None when it has none.

    Raises:
        EnvError: it is not valid JSON.
    """
    entry = _task_file(task, _join(_manifest_dir(task), "package.json"))
    if entry is None:
        return None
    try:
        data = json.loads(entry.data())
    except ValueError as e:
        raise EnvError(f"task {task.id}: package.json is not valid JSON ({e})") from None
    if not isinstance(data, dict):
        raise EnvError(f"task {task.id}: package.json is not a JSON object")
    return data


def declared_dependencies(pkg: dict[str, Any] | None) -> set[str]:
    """Every package name in the dependency fields of ``package.json``."""
    names: set[str] = set()
    for fld in _DEP_FIELDS:
        deps = (pkg or {}).get(fld)
        if isinstance(deps, dict):
            names.update(str(k) for k in deps)
    return names


def wants_tsx(task: Task, pkg: dict[str, Any] | None) -> bool:
    """Whether the environment provides tsx: a TypeScript task that brings no loader of its own."""
    return task.language.lower() == "typescript" and not (declared_dependencies(pkg) & OWN_TS_TOOLS)


@functools.lru_cache(maxsize=8)
def _version(program: str) -> str:
    try:
        r = subprocess.run([program, "--version"], capture_output=True, text=True, timeout=60, check=False)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise EnvError(f"{program} --version failed: {e}") from e
    if r.returncode != 0:
        raise EnvError(f"{program} --version failed (exit {r.returncode}): {r.stderr.strip()[-300:]}")
    return r.stdout.strip()


def npm_version(npm: str) -> str:
    """npm's version, read from its own ``package.json`` (starting npm takes ~0.15 s), else asked."""
    here = Path(os.path.realpath(npm)).parent
    for d in (here, *here.parents[:3]):
        manifest = d / "package.json"
        try:
            data = json.loads(manifest.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if isinstance(data, dict) and data.get("name") == "npm" and isinstance(data.get("version"), str):
            return str(data["version"])
    return _version(npm)


def find_node() -> Path:
    """The ``node`` on PATH, resolved.

    Raises:
        EnvError: there is none; the message says what to install.
    """
    node = shutil.which("node")
    if node is None:
        raise EnvError("node is not installed: install Node.js 20 or newer (e.g. apt-get install nodejs npm)")
    return Path(os.path.realpath(node))


def find_npm() -> str:
    """The ``npm`` on PATH.

    Raises:
        EnvError: there is none; the message says what to install.
    """
    npm = shutil.which("npm")
    if npm is None:
        raise EnvError("npm is not installed: install it with Node.js (e.g. apt-get install npm)")
    return npm


def _sha(entry: FileEntry | None) -> str | None:
    return None if entry is None else hashlib.sha256(entry.data()).hexdigest()


class NodeEnv(Env):
    """``node_modules`` from the task's manifests, plus tsx for TypeScript; read-only, cached."""

    name = "node"
    languages = ("javascript", "typescript")

    def describe(self, task: Task) -> dict[str, Any]:
        node = find_node()
        pkg = package_json(task)
        rel = _manifest_dir(task)
        install = bool(declared_dependencies(pkg))
        tsx = wants_tsx(task, pkg)
        lock = next(
            (e for e in (_task_file(task, _join(rel, n)) for n in _LOCKFILES) if e is not None),
            None,
        )
        return {
            "layout": LAYOUT,
            "node": _version(str(node)),
            "npm": npm_version(find_npm()) if install or tsx else None,
            "arch": platform.machine(),
            "package_json": _sha(_task_file(task, _join(rel, "package.json"))) if install else None,
            "lockfile": {"name": posixpath.basename(lock.path), "sha256": _sha(lock)}
            if install and lock
            else None,
            "ts_tool": {"tsx": TSX_VERSION, "esbuild": ESBUILD_VERSION} if tsx else None,
            "setup_cmds": list(task.env.setup_cmds),
        }

    def build(self, task: Task, dest: Path) -> None:
        node = find_node()
        pkg = package_json(task)
        rel = _manifest_dir(task)
        env = {**os.environ, **_NPM_ENV, "PATH": f"{node.parent}:{os.environ.get('PATH', '')}"}
        if declared_dependencies(pkg):
            npm = find_npm()
            manifest = _task_file(task, _join(rel, "package.json"))
            assert manifest is not None
            (dest / "package.json").write_bytes(manifest.data())
            lock = None
            for name in _LOCKFILES:
                lock = _task_file(task, _join(rel, name))
                if lock is not None:
                    (dest / name).write_bytes(lock.data())
                    break
            if lock is not None:
                _check([npm, "ci", *_INSTALL_FLAGS], dest, env, "npm ci")
            else:
                _check([npm, "install", *_INSTALL_FLAGS], dest, env, "npm install")
        if wants_tsx(task, pkg):
            npm = find_npm()
            tools = dest / "tools"
            tools.mkdir()
            manifest_text = json.dumps(
                {"private": True, "dependencies": {"tsx": TSX_VERSION, "esbuild": ESBUILD_VERSION}}, indent=1
            )
            (tools / "package.json").write_text(manifest_text + "\n")
            _check([npm, "install", *_INSTALL_FLAGS], tools, env, f"npm install tsx@{TSX_VERSION}")
            if not (dest / TSX_LOADER).is_file():
                raise EnvError(f"tsx {TSX_VERSION} installed without its loader {TSX_LOADER}")
        bin_dirs = [str(p) for p in (dest / "node_modules" / ".bin", dest / "tools/node_modules/.bin")]
        # A repository task's setup commands (npm ci, npm install...) run in its checkout, where its
        # package.json is (patchbench.repos.prepare_tree): node_modules is then part of the cached tree.
        for cmd in () if task.repository is not None else task.env.setup_cmds:
            setup_env = {**env, "PATH": ":".join([*bin_dirs, env["PATH"]])}
            _check(["bash", "-c", cmd], dest, setup_env, f"setup command {cmd!r}")

    def activate(self, root: Path, task: Task) -> Prepared:
        node = find_node()
        ro: list[Path] = [root]
        path: list[str] = []
        env: dict[str, str] = {"NO_COLOR": "1", **_NPM_ENV}
        mounts: list[tuple[str, Path]] = []
        prelude: list[str] = []
        modules = root / "node_modules"
        if modules.is_dir():
            mounts.append((_join(_manifest_dir(task), "node_modules"), modules))
            env["NODE_PATH"] = str(modules)
            path.append(str(modules / ".bin"))
        loader = root / TSX_LOADER
        if loader.is_file():
            path.append(str(root / "tools/node_modules/.bin"))
            flag = f"--import={loader.as_uri()}"
            prelude.append(f'export NODE_OPTIONS="{flag}${{NODE_OPTIONS:+ $NODE_OPTIONS}}"')
        # A node outside the system directories (nvm, a tarball in /root...) must be made visible.
        prefix = node.parent.parent
        if not str(node).startswith(_BASE_DIRS):
            ro.append(prefix)
            path.append(str(node.parent))
        return Prepared(
            key=root.name,
            root=root,
            ro_paths=tuple(ro),
            path=tuple(path),
            env=env,
            workspace_mounts=tuple(mounts),
            prelude=tuple(prelude),
        )


def _check(argv: list[str], cwd: Path, env: dict[str, str], what: str) -> None:
    try:
        r = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=1800, check=False)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise EnvError(f"{what}: {e}") from e
    if r.returncode != 0:
        tail = " ".join((r.stderr or r.stdout).split())[-600:]
        raise EnvError(f"{what} failed (exit {r.returncode}): {tail}")
