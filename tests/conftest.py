"""Shared fixtures: small synthetic tasks for the harness and the CLI."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from patchbench import FileEntry, Task, TestCommand, TestSpec, harness


@pytest.fixture(autouse=True, scope="session")
def _one_secret_shift() -> Iterator[None]:
    """The controls' secret shift pinned to the smallest one drawn (it moves inputs least: the weakest
    against a repair drawn near the listed inputs), so the suite gives the same verdicts on every run;
    ``scripts/redteam/shift_sweep.py`` runs the battery under every shift."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(harness, "SHIFTS", harness.SHIFTS[:1])
        yield


def tap_task(
    script: str,
    *,
    f2p: tuple[str, ...] = (),
    p2p: tuple[str, ...] = (),
    limit: float = 30,
    files: dict[str, str] | None = None,
    task_id: str = "tap-task",
) -> Task:
    """A task whose test command is a bash script printing TAP."""
    return Task(
        id=task_id,
        workspace=tuple(FileEntry(path=k, content=v) for k, v in (files or {"src.txt": "buggy\n"}).items()),
        test=TestSpec(commands=(TestCommand(shell=script),), time_limit_s=limit),
        fail_to_pass=f2p,
        pass_to_pass=p2p,
    )


#: Git with a fixed identity and no system config: the repository tasks' tests build small repositories.
GIT_ENV = {
    **os.environ,
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@t",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@t",
    "GIT_CONFIG_NOSYSTEM": "1",
}


def git(repo: Path, *args: str) -> str:
    """``git ARGS`` in ``repo`` with :data:`GIT_ENV`; its standard output, stripped."""
    return subprocess.run(
        ["git", *args], cwd=repo, env=GIT_ENV, check=True, capture_output=True, text=True
    ).stdout.strip()
