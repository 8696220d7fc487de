"""Shared fixtures: small synthetic tasks for the harness and the CLI."""

from __future__ import annotations

from patchbench import FileEntry, Task, TestCommand, TestSpec


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
