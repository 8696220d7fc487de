"""Environment preparation: one interface per language, one content-addressed cache.

Two phases: ``prepare`` runs once per environment key, with network, only trusted commands (dependency
installs, the task's setup commands); the result is a read-only directory in the cache. Test runs then use
it offline inside the sandbox, through the read-only paths and variables a :class:`Prepared` lists.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import logging
import os
import shutil
import time
from abc import ABC, abstractmethod
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from ..lifecycle import default_cache_dir
from ..sandbox import Sandbox
from ..task import Task

log = logging.getLogger("patchbench.envs")


@dataclass(frozen=True)
class Prepared:
    """A ready environment.

    Attributes:
        key: the content hash that names it in the cache.
        root: its directory in the cache (read-only).
        ro_paths: host paths the sandbox must expose read-only at the same place (the env itself, the
            toolchain it links to).
        path: directories put in front of PATH.
        env: extra variables for test commands.
        cache_hit: whether it was already in the cache.
        seconds: time spent preparing (or finding) it.
        notes: anything worth telling the user (a requested version that was not available...).
        workspace_mounts: (workspace-relative path, host path) pairs bound read-only inside the
            workspace (e.g. ``node_modules`` from the cache).
        prelude: trusted shell lines run inside the sandbox before each test command (e.g. seeding a
            writable build cache under /tmp from the read-only environment).
        setup_env: variables a repository task's ``env_setup_cmds`` get over ``env`` (they run online and
            may write the environment: package managers pointed at its caches, not at offline mode).
        setup_after: trusted shell lines run after a repository task's ``env_setup_cmds``, in the same
            setup (e.g. warming a build cache); they must not fail the setup.
    """

    key: str
    root: Path
    ro_paths: tuple[Path, ...] = ()
    path: tuple[str, ...] = ()
    env: dict[str, str] = field(default_factory=dict)
    cache_hit: bool = False
    seconds: float = 0.0
    notes: tuple[str, ...] = ()
    workspace_mounts: tuple[tuple[str, Path], ...] = ()
    prelude: tuple[str, ...] = ()
    setup_env: dict[str, str] = field(default_factory=dict)
    setup_after: tuple[str, ...] = ()


class Env(ABC):
    """Environment preparation for one family of languages. Subclasses register in ``envs.ENVS``."""

    name: ClassVar[str] = ""
    languages: ClassVar[tuple[str, ...]] = ()

    def __init__(self, cache_dir: Path | None = None) -> None:
        self.cache_dir = cache_dir or default_cache_dir()
        #: The run's local repository directories (``--repos``), for environments that read a
        #: repository task's checkout while they build (Rust pre-builds its dependencies there).
        self.repos: tuple[str | Path, ...] = ()
        #: The caller's sandbox, for environments that run a task's code while they build (Rust runs its
        #: crates' build scripts); None: the default backend. Never a run outside a sandbox.
        self.sandbox: Sandbox | None = None

    @abstractmethod
    def describe(self, task: Task) -> dict[str, Any]:
        """Everything that determines the environment's content; hashed into its key.

        Include the task's dependency manifests (package.json, go.mod, Cargo.toml, pom.xml...) as read
        from the task itself, never from a candidate: a candidate cannot change what gets installed.
        """

    @abstractmethod
    def build(self, task: Task, dest: Path) -> None:
        """Create the environment in ``dest`` (network allowed; trusted commands only).

        Raises:
            EnvError: it cannot be built; the message names what to install.
        """

    @abstractmethod
    def activate(self, root: Path, task: Task) -> Prepared:
        """Describe how test commands use the environment built at ``root``."""

    def key(self, task: Task) -> str:
        """The content-addressed key of an environment."""
        desc: dict[str, Any] = {"env": self.name, **self.describe(task)}
        if task.repository is not None and task.env.setup_cmds:
            # env_setup_cmds may install into this environment (an editable install...): it is then
            # this repository's alone.
            desc["repository"] = [
                task.repository.repo,
                task.repository.base_commit,
                list(task.env.setup_cmds),
            ]
        blob = json.dumps(desc, sort_keys=True, default=str)
        return f"{self.name}-{hashlib.sha256(blob.encode()).hexdigest()[:20]}"

    def prepare(self, task: Task) -> Prepared:
        """Return the cached environment for ``task``, building it first on a miss.

        Raises:
            EnvError: it could not be built.
        """
        t0 = time.monotonic()
        key = self.key(task)
        root = self.cache_dir / "envs" / key
        hit = (root / ".ready").exists()
        if not hit:
            with _lock(self.cache_dir / "locks" / f"{key}.lock"):
                if not (root / ".ready").exists():
                    log.info("environment %s: cache miss, building", key)
                    # Built in place, not in a temporary directory renamed afterwards: virtualenvs,
                    # console scripts and build caches record absolute paths. ``.ready`` is written
                    # last, so a half-built directory is never used and is rebuilt next time.
                    _force_remove(root)
                    root.mkdir(parents=True)
                    try:
                        self.build(task, root)
                        (root / ".describe.json").write_text(
                            json.dumps(self.describe(task), indent=1, sort_keys=True, default=str)
                        )
                        _read_only(root)
                        os.chmod(root, 0o755)
                        (root / ".ready").write_text(time.strftime("%Y-%m-%dT%H:%M:%S"))
                        os.chmod(root, 0o555)
                    except BaseException:
                        _force_remove(root)
                        raise
                else:
                    hit = True
        if hit:
            log.info("environment %s: cache hit, reused", key)
        prepared = self.activate(root, task)
        return Prepared(
            key=key,
            root=root,
            ro_paths=prepared.ro_paths,
            path=prepared.path,
            env=prepared.env,
            cache_hit=hit,
            seconds=time.monotonic() - t0,
            notes=prepared.notes,
            workspace_mounts=prepared.workspace_mounts,
            prelude=prepared.prelude,
            setup_env=prepared.setup_env,
            setup_after=prepared.setup_after,
        )


@contextlib.contextmanager
def _lock(path: Path) -> Iterator[None]:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def _force_remove(root: Path) -> None:
    """Remove a (possibly read-only) environment directory."""
    if not root.exists():
        return
    for dirpath, _dirnames, _filenames in os.walk(root):
        with contextlib.suppress(OSError):
            os.chmod(dirpath, 0o755)
    shutil.rmtree(root, ignore_errors=True)


def _read_only(root: Path) -> None:
    """Drop write bits everywhere below ``root`` (directories keep x and r for everyone)."""
    for dirpath, _dirnames, filenames in os.walk(root):
        for name in filenames:
            p = os.path.join(dirpath, name)
            if not os.path.islink(p):
                mode = os.stat(p).st_mode
                os.chmod(p, (mode | 0o444) & ~0o222)
        os.chmod(dirpath, 0o555)
