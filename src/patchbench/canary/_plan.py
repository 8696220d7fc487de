"""plan_canary: the canary for a run, by runner."""

from __future__ import annotations

import posixpath
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..task import FileEntry, Task
from ._base import (
    Canary,
)
from ._junit import (
    _junit,
)
from ._native import (
    _cargo,
    _go,
)
from ._node import (
    JS_FRAMEWORKS,
    _framework,
    _node,
)
from ._python import (
    _pytest,
    _tap_python,
)
from ._sql import plan_sql


def plan_canary(
    runner: str,
    task: Task,
    tests: Sequence[FileEntry],
    nonce: str,
    *,
    workspace_dst: str,
    harness_dst: str,
    read: Callable[[str], str | None] | None = None,
    reports_dst: str | None = None,
    env_plugins: Sequence[str] | None = None,
    controls: Mapping[str, Mapping[str, Any]] | None = None,
    probe: bool = False,
) -> Canary | None:
    """The canary for one run, or None when this runner/task gets none.

    Args:
        runner: the runner's name.
        task: the task (its language and test commands).
        tests: the hidden tests as injected (their paths and contents).
        nonce: the run's nonce.
        workspace_dst: the workspace's path inside the sandbox.
        harness_dst: where the harness directory is mounted inside the sandbox.
        read: reads a workspace file (relative path) as text, None when absent (JUnit: the pom).
        reports_dst: the report directory's path inside the sandbox (pytest: the integrity stream).
        env_plugins: the modules of the environment's ``pytest11`` entry points (:func:`env_pytest_plugins`):
            given, pytest's plugin auto-loading is turned off and these are loaded by ``-p`` instead; None
            leaves auto-loading on (the environment could not be read).
        controls: the calibrated control tests (key -> what the calibration learnt): SQL control cases
            (:func:`plan_sql`), Python control copies (:func:`plan_decoys`).
        probe: calibration only: plant every control candidate as a probe.
    """
    commands = " ".join(c.display() for c in task.test.commands)
    if runner == "pytest":
        return _pytest(
            task,
            tests,
            nonce,
            commands,
            workspace_dst,
            harness_dst,
            reports_dst,
            env_plugins,
            controls=controls or {},
            probe=probe,
        )
    if runner == "tap" and task.language == "sql":
        sql = plan_sql(task, tests, nonce, controls=controls, probe=probe, read=read)
        if sql is None:
            return None
        return Canary(
            token=sql.canary,
            files={sql.path: sql.text},
            controls=sql.controls,
            probes=dict(sql.probes or {}),
            control_keys=dict(sql.control_keys or {}),
        )
    if runner == "tap" and task.language == "python":
        return _tap_python(
            tests, nonce, harness_dst, workspace_dst, task, controls=controls or {}, probe=probe
        )
    keys = controls or {}
    if runner == "node-test":
        return _node(tests, nonce, commands, harness_dst, workspace_dst, task, keys, probe)
    if runner in JS_FRAMEWORKS:
        return _framework(runner, tests, nonce, commands, task, keys, probe)
    if runner == "go-test":
        return _go(tests, nonce, task, keys, probe)
    if runner == "cargo-test":
        return _cargo(tests, nonce, task, keys, probe, harness_dst)
    if runner == "junit":
        pom = read(posixpath.join(task.test.workdir.strip("/") or ".", "pom.xml")) if read else None
        return _junit(tests, nonce, commands, pom, task, keys, probe)
    return None
