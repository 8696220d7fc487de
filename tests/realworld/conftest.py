"""The real-world corpus (``scripts/realworld/``): where it is, and the command line a user runs on it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]


def corpus(part: str, build: str) -> Path:
    """``$PATCHBENCH_REALWORLD/<part>`` (default ``realworld/`` at the repository root); the test is
    skipped, naming the command that builds it, when it is absent."""
    path = Path(os.environ.get("PATCHBENCH_REALWORLD") or ROOT / "realworld") / part
    if not path.exists():
        pytest.skip(f"{path} is absent; build it with: {build}")
    return path


def patchbench(*args: str, timeout: float = 3600) -> tuple[int, list[dict[str, Any]]]:
    """``patchbench run ... --json`` as a user runs it (the installed command line, a process of its
    own); its exit code and its verdicts."""
    done = subprocess.run(
        [sys.executable, "-m", "patchbench.cli", "run", *args, "--json"],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    try:
        verdicts = json.loads(done.stdout)
    except ValueError:
        pytest.fail(
            f"patchbench run {' '.join(args)} printed no JSON (exit {done.returncode}):\n{done.stderr}"
        )
    return done.returncode, verdicts


def one_per_task(verdicts: list[dict[str, Any]], task_ids: list[str]) -> dict[str, dict[str, Any]]:
    """The verdicts by task id, checked to be exactly one for each of ``task_ids``."""
    by_id = {v["task_id"]: v for v in verdicts}
    assert len(verdicts) == len(by_id) and sorted(by_id) == sorted(task_ids)
    return by_id
