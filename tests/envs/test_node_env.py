"""The JavaScript/TypeScript environment: keys, missing toolchains, npm installs, tsx, and whole runs.

Tests marked ``slow`` use npm (the registry, for ``is-number`` and tsx) and the bwrap sandbox.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import time
from pathlib import Path

import pytest

from patchbench import Candidate, FileEntry, Task, TestCommand, TestSpec
from patchbench.api import load
from patchbench.envs import env_for
from patchbench.envs import node as node_env
from patchbench.envs.node import TSX_LOADER, NodeEnv
from patchbench.errors import EnvError
from patchbench.harness import run
from patchbench.task import EnvSpec

PACKAGE_JSON = json.dumps(
    {"name": "dep-probe", "version": "1.0.0", "private": True, "dependencies": {"is-number": "7.0.0"}}
)
LOCKFILE = json.dumps(
    {
        "name": "dep-probe",
        "version": "1.0.0",
        "lockfileVersion": 3,
        "requires": True,
        "packages": {
            "": {"name": "dep-probe", "version": "1.0.0", "dependencies": {"is-number": "7.0.0"}},
            "node_modules/is-number": {
                "version": "7.0.0",
                "integrity": "sha512-41Cifkg6e8TylSpdtTpeLVMqvSBEVzTttHvERD741+pnZ8ANv0004MRL43QKP"
                "DlK9cGvNp6NZWZUBlbGXYxxng==",
                "license": "MIT",
                "engines": {"node": ">=0.12.0"},
            },
        },
    },
    indent=2,
)
# Uses the dependency from node_modules; `check` is the code under test.
CHECK_JS = "const isNumber = require('is-number');\nexports.check = (v) => isNumber(v);\n"
TEST_JS = """const test = require('node:test');
const assert = require('node:assert/strict');
const { check } = require('../check.js');
test('numbers are numbers', () => { assert.equal(check(5), true); });
test('numeric strings are numbers', () => { assert.equal(check('5'), true); });
test('words are not numbers', () => { assert.equal(check('five'), false); });
"""


def _task(
    *,
    language: str = "javascript",
    files: dict[str, str] | None = None,
    tests: dict[str, str] | None = None,
    f2p: tuple[str, ...] = (),
    p2p: tuple[str, ...] = (),
    setup: tuple[str, ...] = (),
    command: tuple[str, ...] = ("node", "--test", "tests/"),
) -> Task:
    return Task(
        id=f"node-env-{language}",
        language=language,
        workspace=tuple(FileEntry(path=k, content=v) for k, v in (files or {}).items()),
        hidden_tests=tuple(FileEntry(path=k, content=v) for k, v in (tests or {}).items()),
        test=TestSpec(commands=(TestCommand(argv=command),), time_limit_s=60),
        env=EnvSpec(language=language, setup_cmds=setup),
        fail_to_pass=f2p,
        pass_to_pass=p2p,
    )


def _dep_task() -> Task:
    return _task(
        files={
            "package.json": PACKAGE_JSON,
            "package-lock.json": LOCKFILE,
            "check.js": "exports.check = () => 0;\n",
        },
        tests={"tests/check.test.js": TEST_JS},
        f2p=("numbers are numbers", "numeric strings are numbers"),
        p2p=(),
    )


def _builtin(task_id: str) -> Task:
    return next(t for t in load("builtin").tasks if t.id == task_id)


# -- keys -------------------------------------------------------------------------------------------


def test_env_for_maps_both_languages_to_node(tmp_path: Path) -> None:
    assert isinstance(env_for("javascript", tmp_path), NodeEnv)
    assert isinstance(env_for("typescript", tmp_path), NodeEnv)


def test_key_changes_with_the_manifest_the_lockfile_and_the_ts_tool(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    env = NodeEnv(tmp_path)
    base = _dep_task()
    key = env.key(base)
    assert env.key(_dep_task()) == key  # stable
    bumped = base.model_copy(
        update={
            "workspace": (FileEntry(path="package.json", content=PACKAGE_JSON.replace("7.0.0", "7.0.1")),)
        }
    )
    assert env.key(bumped) != key
    relocked = base.model_copy(
        update={
            "workspace": (
                FileEntry(path="package.json", content=PACKAGE_JSON),
                FileEntry(
                    path="package-lock.json", content=LOCKFILE.replace('"license": "MIT"', '"license": "X"')
                ),
            )
        }
    )
    assert env.key(relocked) != key
    ts = _task(language="typescript")
    ts_key = env.key(ts)
    assert ts_key != env.key(_task())
    monkeypatch.setattr(node_env, "TSX_VERSION", "4.0.0")
    assert env.key(ts) != ts_key


def test_a_package_json_without_dependencies_does_not_change_the_key(tmp_path: Path) -> None:
    env = NodeEnv(tmp_path)
    bare = env.key(_task())
    typed = _task(files={"package.json": '{"type": "module", "scripts": {"test": "node --test"}}'})
    assert env.key(typed) == bare
    assert env.describe(typed)["npm"] is None


def test_the_manifest_is_read_in_the_test_working_directory(tmp_path: Path) -> None:
    env = NodeEnv(tmp_path)
    task = _task(files={"web/package.json": PACKAGE_JSON})
    assert env.describe(task)["package_json"] is None
    moved = task.model_copy(update={"test": task.test.model_copy(update={"workdir": "web"})})
    assert env.describe(moved)["package_json"] is not None


# -- missing toolchains and broken manifests --------------------------------------------------------


def _without(monkeypatch: pytest.MonkeyPatch, *programs: str) -> None:
    real = shutil.which

    def which(cmd: str, *args: object, **kwargs: object) -> str | None:
        return None if os.path.basename(cmd) in programs else real(cmd)

    monkeypatch.setattr(shutil, "which", which)


def test_missing_node_is_an_env_error_naming_what_to_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _without(monkeypatch, "node")
    with pytest.raises(EnvError, match=r"node is not installed: install Node\.js 20"):
        NodeEnv(tmp_path).prepare(_task())


def test_missing_npm_matters_only_when_something_must_be_installed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _without(monkeypatch, "npm")
    assert NodeEnv(tmp_path).prepare(_task()).workspace_mounts == ()
    with pytest.raises(EnvError, match="npm is not installed"):
        NodeEnv(tmp_path).prepare(_dep_task())
    with pytest.raises(EnvError, match="npm is not installed"):
        NodeEnv(tmp_path).prepare(_task(language="typescript"))


def test_an_invalid_package_json_is_an_env_error(tmp_path: Path) -> None:
    with pytest.raises(EnvError, match=r"package\.json is not valid JSON"):
        NodeEnv(tmp_path).prepare(_task(files={"package.json": "{ nope"}))


def test_a_missing_toolchain_is_an_infra_error_verdict(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _without(monkeypatch, "node")
    verdict = run(_task(tests={"tests/a.test.js": TEST_JS}), Candidate.empty(), cache_dir=tmp_path)
    assert verdict.status.value == "infra_error"
    assert "install Node.js" in (verdict.reason or "")


# -- building and activating ------------------------------------------------------------------------


def test_a_task_without_dependencies_gets_an_empty_env_cold_then_warm(tmp_path: Path) -> None:
    env = NodeEnv(tmp_path)
    cold = env.prepare(_task())
    warm = env.prepare(_task())
    assert (cold.cache_hit, warm.cache_hit) == (False, True)
    assert warm.key == cold.key
    assert warm.workspace_mounts == ()
    assert warm.prelude == ()
    assert "NODE_PATH" not in warm.env
    assert warm.seconds < 1.0


@pytest.mark.slow
def test_npm_ci_builds_a_read_only_node_modules_then_a_warm_prepare_hits(tmp_path: Path) -> None:
    env = NodeEnv(tmp_path)
    t0 = time.monotonic()
    cold = env.prepare(_dep_task())
    cold_s = time.monotonic() - t0
    t1 = time.monotonic()
    warm = env.prepare(_dep_task())
    warm_s = time.monotonic() - t1
    print(f"\nnpm ci env: cold {cold_s:.2f}s, warm {warm_s:.3f}s")
    assert (cold.cache_hit, warm.cache_hit) == (False, True)
    modules = warm.root / "node_modules"
    assert (modules / "is-number" / "package.json").is_file()
    assert not os.stat(modules / "is-number" / "index.js").st_mode & (
        stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH
    )
    assert warm.workspace_mounts == (("node_modules", modules),)
    assert warm.env["NODE_PATH"] == str(modules)
    assert str(modules / ".bin") in warm.path
    assert warm_s < 1.0


@pytest.mark.slow
def test_setup_commands_run_in_the_environment(tmp_path: Path) -> None:
    task = _dep_task().model_copy(
        update={"env": EnvSpec(language="javascript", setup_cmds=("ls node_modules > installed.txt",))}
    )
    prepared = NodeEnv(tmp_path).prepare(task)
    assert (prepared.root / "installed.txt").read_text().split() == ["is-number"]


@pytest.mark.slow
def test_typescript_gets_tsx_through_the_prelude(tmp_path: Path) -> None:
    env = NodeEnv(tmp_path)
    t0 = time.monotonic()
    assert not env.prepare(_task(language="typescript")).cache_hit
    cold_s = time.monotonic() - t0
    warm = env.prepare(_task(language="typescript"))
    print(f"\ntsx env: cold {cold_s:.2f}s, warm {warm.seconds:.3f}s")
    assert warm.cache_hit
    loader = warm.root / TSX_LOADER
    assert loader.is_file()
    assert len(warm.prelude) == 1
    assert f"--import={loader.as_uri()}" in warm.prelude[0]
    assert "${NODE_OPTIONS:+ $NODE_OPTIONS}" in warm.prelude[0]  # keeps the runner's reporter flags
    assert str(warm.root / "tools/node_modules/.bin") in warm.path
    own = _task(
        language="typescript", files={"package.json": json.dumps({"devDependencies": {"tsx": "4.0.0"}})}
    )
    assert env.describe(own)["ts_tool"] is None


# -- whole runs in the sandbox ----------------------------------------------------------------------


@pytest.mark.slow
def test_a_dependency_from_node_modules_is_visible_to_the_tests(tmp_path: Path) -> None:
    task = _dep_task()
    empty = run(task, Candidate.empty(), cache_dir=tmp_path)
    assert empty.status.value == "unresolved", empty.reason
    fixed = run(task, Candidate.files({"check.js": CHECK_JS}), cache_dir=tmp_path)
    assert fixed.status.value == "resolved", (fixed.reason, fixed.stderr_tail)
    assert fixed.env_cache_hit is True
    assert fixed.runner == "node-test"
    assert {t.id for t in fixed.tests} == {
        "numbers are numbers",
        "numeric strings are numbers",
        "words are not numbers",
    }


@pytest.mark.slow
def test_builtin_js_task_gold_resolves_and_a_syntax_error_is_unresolved_with_node_s_message(
    tmp_path: Path,
) -> None:
    task = _builtin("js-lru-numeric-key-eviction")
    assert run(task, Candidate.gold(), cache_dir=tmp_path).status.value == "resolved"
    broken = Candidate.files({"src/table.js": "export class OrderedTable {\n  put(key, value {\n}\n"})
    verdict = run(task, broken, cache_dir=tmp_path)
    assert verdict.status.value == "unresolved"
    assert "the code did not build" in (verdict.reason or "")
    assert "SyntaxError" in (verdict.reason or "")


@pytest.mark.slow
def test_builtin_ts_task_gold_resolves_and_a_syntax_error_is_unresolved_with_the_transform_error(
    tmp_path: Path,
) -> None:
    task = _builtin("ts-aggregate-replay-field-reset")
    gold = run(task, Candidate.gold(), cache_dir=tmp_path)
    assert gold.status.value == "resolved", (gold.reason, gold.stderr_tail)
    source = task.workspace_map()["src/aggregate.ts"]
    broken = Candidate.files(
        {"src/aggregate.ts": source.replace("readonly id: string;", "readonly id: string =;")}
    )
    verdict = run(task, broken, cache_dir=tmp_path)
    assert verdict.status.value == "unresolved"
    assert "the code did not build" in (verdict.reason or "")
    assert "aggregate.ts" in (verdict.reason or "")
