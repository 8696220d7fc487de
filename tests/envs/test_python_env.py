"""The Python environment: pip works in setup commands as users write them, served by uv where it can be.

Regression (issue 11): the prepared venv had no pip, so a repository row whose ``env_setup_cmds`` said
``python -m pip install ...``, ``pip install -e .`` or ``pip install -r requirements.txt`` failed its setup
with ``No module named pip`` and every such row was ``infra_error``. The rows here install a local package
(no index needed) in every way the issue lists, then run tests that import it from the installed location.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

import patchbench as pb
from conftest import git as _git
from patchbench import Candidate, FileEntry, Repository, Status, Task, TestCommand, TestSpec
from patchbench.envs.python import PIP_SHIM_VERSION, PythonEnv, install_pip_shim, uv_binary
from patchbench.task import EnvSpec

SETUP_PY = "from setuptools import setup\nsetup(name='{name}', version='1.0', packages=['{name}'])\n"
BUGGY = "def halve(x):\n    return x // 3\n"
GOLD = (
    "--- a/mainpkg/core.py\n+++ b/mainpkg/core.py\n@@ -1,2 +1,2 @@\n def halve(x):\n-    return x // 3\n"
    "+    return x // 2\n"
)
# The test checks where each package is imported from: the editable install is the workspace itself.
SUITE = """import os, sys
import mainpkg.core, helperpkg
print("1..2")
ok = mainpkg.core.__file__.startswith(os.getcwd()) and helperpkg.VALUE == 7
print(("ok" if ok else "not ok") + " 1 - installed")
r = mainpkg.core.halve(10) == 5
print(("ok" if r else "not ok") + " 2 - halves")
"""


@pytest.fixture(scope="module")
def mirror(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """A repository holding a setup.py package and a local dependency named in requirements.txt."""
    top = tmp_path_factory.mktemp("pyrepo")
    repo = top / "proj"
    (repo / "mainpkg").mkdir(parents=True)
    (repo / "mainpkg" / "__init__.py").write_text("")
    (repo / "mainpkg" / "core.py").write_text(BUGGY)
    (repo / "setup.py").write_text(SETUP_PY.format(name="mainpkg"))
    (repo / "vendor" / "helper" / "helperpkg").mkdir(parents=True)
    (repo / "vendor" / "helper" / "helperpkg" / "__init__.py").write_text("VALUE = 7\n")
    (repo / "vendor" / "helper" / "setup.py").write_text(SETUP_PY.format(name="helperpkg"))
    (repo / "requirements.txt").write_text("./vendor/helper\n")
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "buggy")
    base = _git(repo, "rev-parse", "HEAD")
    mirrors = top / "mirrors"
    (mirrors / "acme").mkdir(parents=True)
    subprocess.run(
        ["git", "clone", "-q", "--mirror", str(repo), str(mirrors / "acme" / "proj.git")], check=True
    )
    return mirrors, base


def _row(base: str, setup: tuple[str, ...]) -> Task:
    return Task(
        id="py-pip-row",
        repository=Repository(repo="acme/proj", base_commit=base),
        hidden_tests=(FileEntry(path="tests/suite.py", content=SUITE),),
        # Run from /tmp: only the installs (not the current directory) can make the packages importable.
        test=TestSpec(commands=(TestCommand(shell="cd /workspace && python -I tests/suite.py"),)),
        env=EnvSpec(language="python", setup_cmds=setup),
        fail_to_pass=("halves",),
        pass_to_pass=("installed",),
        gold_patch=GOLD,
    )


NBI = "--no-build-isolation"  # build with the venv's setuptools: no index needed
SETUPS = {
    "python -m pip": (
        f"python -m pip install -q {NBI} -r requirements.txt",
        f"python -m pip install -q {NBI} -e .",
    ),
    "pip": (f"pip install -q {NBI} -r requirements.txt", f"pip install -q {NBI} -e ."),
    "pip3": (f"pip3 install {NBI} -r requirements.txt", f"pip3 install {NBI} -e ."),
    # setuptools >= 80 runs `pip install -e . --use-pep517` for it: an isolated build, from the index.
    "setup.py develop": (f"pip install {NBI} ./vendor/helper", "python setup.py develop"),
}


@pytest.mark.slow
@pytest.mark.parametrize("way", sorted(SETUPS))
def test_setup_commands_install_with_pip_as_users_write_them(
    mirror: tuple[Path, str], tmp_path: Path, way: str
) -> None:
    """Each way of installing works in env_setup_cmds; gold then resolves and the buggy code does not."""
    mirrors, base = mirror
    task = _row(base, SETUPS[way])
    cache = tmp_path / "cache"
    net = way == "setup.py develop"
    gold = pb.run(task, Candidate.gold(), repos=[mirrors], cache_dir=cache, network=net)
    assert gold.status is Status.RESOLVED, gold.reason
    empty = pb.run(task, Candidate.empty(), repos=[mirrors], cache_dir=cache, network=net)
    assert empty.status is Status.UNRESOLVED, empty.reason
    assert [(c.id, c.passed) for c in empty.pass_to_pass] == [("installed", True)]


@pytest.mark.slow
def test_the_prepared_env_has_pip_setuptools_and_the_shim(tmp_path: Path) -> None:
    env = PythonEnv(cache_dir=tmp_path / "cache")
    task = Task(id="t", test=TestSpec(commands=(TestCommand(shell="true"),)), env=EnvSpec(language="python"))
    venv = env.prepare(task).root / "venv"
    shim = (venv / "bin" / "pip").read_text()
    assert f"shim (version {PIP_SHIM_VERSION})" in shim and (venv / "bin" / "pip3").read_text() == shim
    py = str(venv / "bin" / "python")
    r = subprocess.run([py, "-c", "import setuptools, wheel, pip"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    r = subprocess.run([venv / "bin" / "pip", "--version"], capture_output=True, text=True, check=False)
    assert r.returncode == 0 and r.stdout.startswith("pip ") and str(venv) in r.stdout  # pip's own command


@pytest.fixture
def shimmed(tmp_path: Path) -> tuple[Path, Path]:
    """A seeded venv with the shim, and a local package to install into it."""
    uv = shutil.which("uv")
    assert uv is not None
    venv = tmp_path / "venv"
    subprocess.run([uv, "venv", "-q", "--seed", str(venv)], check=True)
    install_pip_shim(venv, uv_binary(uv))
    pkg = tmp_path / "pkg"
    (pkg / "hp").mkdir(parents=True)
    (pkg / "hp" / "__init__.py").write_text("VALUE = 7\n")
    (pkg / "setup.py").write_text(SETUP_PY.format(name="hp"))
    return venv, pkg


def _pip(venv: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("PIP_")}
    return subprocess.run(
        [str(venv / "bin" / "pip"), *args], capture_output=True, text=True, env={**clean, **env}, check=False
    )


@pytest.mark.slow
def test_the_pip_shim_installs_with_uv(shimmed: tuple[Path, Path]) -> None:
    venv, pkg = shimmed
    r = _pip(venv, "install", "--no-build-isolation", str(pkg))
    assert r.returncode == 0, r.stderr
    assert "Installed 1 package" in r.stderr and "Successfully installed" not in r.stdout  # uv's words
    r = _pip(venv, "uninstall", "-y", "hp")  # pip's -y: uv never prompts, the flag is dropped
    assert r.returncode == 0 and "Uninstalled 1 package" in r.stderr, r.stderr


@pytest.mark.slow
def test_the_pip_shim_falls_back_to_pip_for_what_uv_cannot_do(shimmed: tuple[Path, Path]) -> None:
    """An option uv lacks, and a pip configuration uv would ignore (find-links), both go to the real pip."""
    venv, pkg = shimmed
    r = _pip(venv, "install", "--progress-bar", "off", "--no-build-isolation", str(pkg))
    assert r.returncode == 0, r.stderr
    assert "running pip" in r.stderr and "Successfully installed hp-1.0" in r.stdout
    _pip(venv, "uninstall", "-y", "hp")
    r = _pip(venv, "install", "--no-build-isolation", str(pkg), PIP_FIND_LINKS=str(pkg))
    assert r.returncode == 0 and "Successfully installed hp-1.0" in r.stdout, r.stderr
