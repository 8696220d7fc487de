"""Shared by the benchmarks: run a task's test command bare (no sandbox, no harness) for comparison."""

from __future__ import annotations

import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import patchbench as pb
from patchbench.envs import Prepared, env_for
from patchbench.envs._exec import BASE_PATH
from patchbench.repos import prepare_tree
from patchbench.sandbox import get_sandbox
from patchbench.workspace import Baseline, apply_patch, clear_dir, inject_tests


class BareDir:
    """A ready directory holding a task's workspace (optionally with gold applied) and hidden tests."""

    def __init__(self, task: pb.Task, *, gold: bool) -> None:
        self.task = task
        self.env: Prepared = env_for(task.env.language).prepare(task)
        self.root = Path(tempfile.mkdtemp(prefix="pb-bench-bare-"))
        baseline = Baseline(task.workspace)
        if task.repository is not None:
            baseline = Baseline(tree=prepare_tree(task, self.env, get_sandbox()).path)
        baseline.materialise(self.root)
        if gold and task.gold_patch:

            def restore() -> None:
                clear_dir(self.root)
                baseline.materialise(self.root)

            apply_patch(self.root, task.gold_patch, restore=restore)
        inject_tests(task.hidden_tests, self.root)
        for rel, src in self.env.workspace_mounts:
            if not (self.root / rel).exists():
                (self.root / rel).symlink_to(src)

    def run(self) -> float:
        """Run every test command once, bare; returns the wall time."""
        env = {
            "PATH": ":".join([*self.env.path, BASE_PATH]),
            **self.env.env,
            "HOME": "/tmp",
            "TMPDIR": "/tmp",
        }
        cwd = self.root / self.task.test.workdir
        t = time.perf_counter()
        for c in self.task.test.commands:
            argv = c.to_argv()
            if self.env.prelude:
                argv = ["bash", "-c", "\n".join([*self.env.prelude, 'exec "$@"']), "prelude", *argv]
            subprocess.run(
                argv, cwd=cwd, env=env, capture_output=True, check=False, timeout=self.task.test.time_limit_s
            )
        return time.perf_counter() - t

    def close(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)
