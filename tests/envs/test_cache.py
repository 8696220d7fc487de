"""``patchbench env list`` / ``env prune``: the cache can be inspected and cleaned."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from patchbench import EnvSpec, Task, TestCommand, TestSpec
from patchbench.cli import app
from patchbench.envs import env_for
from patchbench.envs.cache import list_cache, prune

TASK = Task(id="t", test=TestSpec(commands=(TestCommand(argv=("python", "-c", "pass")),)), env=EnvSpec())


def test_list_shows_a_prepared_env_and_prune_all_removes_it(tmp_path: Path) -> None:
    env_for("python", tmp_path).prepare(TASK)
    (tmp_path / "envs" / "python-halfbuilt").mkdir()  # a leftover of a killed build: no .ready
    entries = list_cache(tmp_path)
    assert {(e.name.startswith("python-"), e.ready) for e in entries} == {(True, True), (True, False)}
    gone = prune(tmp_path)  # leftovers only
    assert [e.name for e in gone] == ["python-halfbuilt"]
    assert len(list_cache(tmp_path)) == 1
    r = CliRunner().invoke(app, ["env", "list", "--cache", str(tmp_path), "--json"])
    assert r.exit_code == 0 and len(json.loads(r.stdout)["entries"]) == 1
    r = CliRunner().invoke(app, ["env", "prune", "--cache", str(tmp_path), "--all", "--json"])
    assert r.exit_code == 0 and len(json.loads(r.stdout)["removed"]) == 1
    assert list_cache(tmp_path) == []
    # a second prepare is a miss again: the cache really is gone
    assert not env_for("python", tmp_path).prepare(TASK).cache_hit


def test_native_images_are_listed_and_pruned(tmp_path: Path) -> None:
    ready = tmp_path / "images" / "image-ready"
    (ready / "tree" / "solution").mkdir(parents=True)
    (ready / "tree" / "solution").chmod(0o700)
    (ready / ".ready").write_text("now")
    (tmp_path / "images" / "image-halfbuilt").mkdir()
    entries = {e.name: e for e in list_cache(tmp_path)}
    assert {n: (e.area, e.ready) for n, e in entries.items()} == {
        "image-halfbuilt": ("images", False),
        "image-ready": ("images", True),
    }
    assert [e.name for e in prune(tmp_path)] == ["image-halfbuilt"]
    assert [e.name for e in prune(tmp_path, everything=True)] == ["image-ready"]
    assert not ready.exists()
