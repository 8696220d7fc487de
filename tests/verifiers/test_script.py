"""The offline stand-ins of ``verifiers/script.py`` (``uvx``, ``uv``), run as the verifier runs them."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from patchbench.verifiers.script import write_shims


def run_shim(tmp_path: Path, command: str) -> str:
    """Run ``command`` with the shims first on PATH and a ``python`` that prints its arguments."""
    shims, fake = tmp_path / "shims", tmp_path / "bin"
    write_shims(shims)
    fake.mkdir()
    (fake / "python").write_text('#!/bin/sh\necho "python $*"\n')
    (fake / "python").chmod(0o755)
    env = {**os.environ, "PATH": f"{shims}:{fake}:/usr/bin:/bin"}
    r = subprocess.run(["bash", "-c", command], capture_output=True, text=True, env=env, check=False)
    return r.stdout.strip() + r.stderr.strip()


def test_uvx_skips_its_own_options_and_runs_pytest_from_the_environment(tmp_path: Path) -> None:
    """Regression: Harbor's template ``uvx --with pytest==8.4.1 ... pytest`` read ``--with`` as the tool
    and failed with "uvx --with is not available offline"."""
    out = run_shim(
        tmp_path,
        "uvx --with pytest==8.4.1 --with=pytest-json-ctrf==0.3.5 -q pytest --ctrf /l/c.json /tests -rA",
    )
    assert out == "python -m pytest --ctrf /l/c.json /tests -rA"


def test_uvx_of_a_tool_it_does_not_have_fails_clearly(tmp_path: Path) -> None:
    assert "uvx pb-no-such-tool is not available offline" in run_shim(tmp_path, "uvx pb-no-such-tool x")
