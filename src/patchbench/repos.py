"""Repository workspaces prepared for runs: the checkout (:mod:`patchbench.checkouts`) with the task's
``env_setup_cmds`` run once in the sandbox and cached (:func:`prepare_tree`)."""

from __future__ import annotations

import hashlib
import json
import logging
import shutil
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from .checkouts import RepoCache, _lock
from .envs import Prepared, env_variables, exec_in_env
from .errors import EnvError
from .sandbox import Bind, Limits, Sandbox
from .task import Task
from .workspace import copy_tree

log = logging.getLogger("patchbench.repos")


@dataclass(frozen=True)
class Tree:
    """The pristine tree a repository task's runs copy: the checkout, after ``env_setup_cmds``.

    Attributes:
        path: the cached tree.
        source: where the repository came from (and whether setup was cached).
        cache_hit: whether both the checkout and its setup came from the cache.
        notes: problems worth reporting (``context_mismatch: ...`` when the context slice is not a true
            slice of the repository at base_commit).
    """

    path: Path
    source: str
    cache_hit: bool
    notes: tuple[str, ...] = ()


def context_mismatches(task: Task, tree: Path) -> list[str]:
    """Context files that are not a true slice of the repository at base_commit, one note each."""
    out: list[str] = []
    for f in task.context_files:
        p = tree / f.path
        if not p.is_file():
            out.append(f"context_mismatch: {f.path} is not in the repository at base_commit")
            continue
        actual = p.read_bytes().decode("utf-8", errors="replace").replace("\r\n", "\n")
        shown = f.data().decode("utf-8", errors="replace").replace("\r\n", "\n")
        if shown.strip() and shown.strip("\n") not in actual:
            out.append(f"context_mismatch: {f.path} differs from the repository at base_commit")
    return out


def prepare_tree(
    task: Task,
    env: Prepared,
    sandbox: Sandbox,
    *,
    cache_dir: Path | None = None,
    repos: Sequence[str | Path] = (),
    network: bool = True,
) -> Tree:
    """The checkout of a repository task, with its ``env_setup_cmds`` run once and cached.

    The setup commands are trusted: they run in the sandbox with the network, as root, with the tree at
    /workspace (so paths they record, like editable installs, point where test runs will find the run's own
    copy) and the task's environment writable (its key includes the repository, commit and commands, so
    no other task shares it). Their effects inside the tree are kept in the cache.

    Raises:
        EnvError: the repository cannot be found, or a setup command fails.
    """
    assert task.repository is not None
    cache = RepoCache(cache_dir, repos, network)
    co = cache.checkout(task.repository, row_id=task.id)
    notes = tuple(context_mismatches(task, co.path))
    cmds = task.env.setup_cmds
    if not cmds:
        return Tree(co.path, co.source, co.cache_hit, notes)
    blob = json.dumps([task.repository.repo, task.repository.base_commit, list(cmds), env.key])
    key = hashlib.sha256(blob.encode()).hexdigest()[:20]
    dest = cache.cache_dir / "prepared" / key
    if (dest / ".ready").exists():
        return Tree(dest / "tree", co.source + "; env_setup_cmds cached", co.cache_hit, notes)
    with _lock(cache.cache_dir / "locks" / f"prepared-{key}.lock"):
        if (dest / ".ready").exists():
            return Tree(dest / "tree", co.source + "; env_setup_cmds cached", co.cache_hit, notes)
        shutil.rmtree(dest, ignore_errors=True)
        tree = dest / "tree"
        copy_tree(co.path, tree, link=False)  # setup commands run as root: they get a real copy
        log.info("running env_setup_cmds for %s in %s", task.id, tree)
        binds = [Bind(tree, "/workspace", writable=True), Bind(env.root, str(env.root), writable=True)]
        script = "set -e\n" + "\n".join([*cmds, *env.setup_after])
        res = exec_in_env(
            sandbox,
            ["bash", "-c", script],
            env=env,
            cwd="/workspace",
            binds=binds,
            variables=env_variables(env, extra={**env.setup_env, "HOME": "/tmp"}),
            limits=Limits(timeout_s=3600, memory_bytes=16 * 2**30, max_processes=4096),
            prelude=False,
            network=network,
            as_root=True,
        )
        if res.exit_code != 0:
            tail = " ".join((res.text("stderr") or res.text("stdout")).split())[-400:]
            shutil.rmtree(dest, ignore_errors=True)
            why = "timed out" if res.timed_out else f"exit {res.exit_code}"
            raise EnvError(f"env_setup_cmds failed for {task.id} ({why}): {tail}")
        (dest / ".ready").write_text(time.strftime("%Y-%m-%dT%H:%M:%S"))
    return Tree(tree, co.source + "; env_setup_cmds run", False, notes)
