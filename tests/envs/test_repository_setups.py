"""Repository rows' ``env_setup_cmds`` for node, Go, Rust and Java run in the checkout, online, into the env.

Regression (issue 11): for a repository row (whose package.json, go.mod, Cargo.toml or pom.xml are in the
repository, not in the task) the node, Go and Java environments ran the row's setup commands themselves,
in an empty scratch directory (``npm install``: ENOENT package.json; ``mvn install``: no POM), and the
commands that did reach the checkout got the test phase's offline settings (``GOPROXY=off``,
``CARGO_NET_OFFLINE=true``, Go in GOPATH mode): every such row was ``infra_error``. These rows need no
registry: their setup commands check what they were given, then the tests run offline.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

import patchbench as pb
from conftest import GIT_ENV
from patchbench import Candidate, Repository, Status, Task, TestCommand, TestSpec
from patchbench.envs.java import JavaEnv, uses_maven
from patchbench.task import EnvSpec
from patchbench.workspace import copy_tree


def _mirror(tmp: Path, name: str, files: dict[str, str]) -> tuple[Path, str]:
    repo = tmp / name
    for path, text in files.items():
        (repo / path).parent.mkdir(parents=True, exist_ok=True)
        (repo / path).write_text(text)
    for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-q", "-m", "base"]):
        subprocess.run(["git", *args], cwd=repo, env=GIT_ENV, check=True, capture_output=True)
    base = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=repo, env=GIT_ENV, check=True, capture_output=True, text=True
    ).stdout.strip()
    mirrors = tmp / "mirrors"
    (mirrors / "acme").mkdir(parents=True, exist_ok=True)
    dest = mirrors / "acme" / f"{name}.git"
    subprocess.run(["git", "clone", "-q", "--mirror", str(repo), str(dest)], check=True)
    return mirrors, base


def _row(name: str, base: str, language: str, setup: str, command: str, f2p: str, gold: str) -> Task:
    return Task(
        id=f"{language}-repo-setup",
        language=language,
        repository=Repository(repo=f"acme/{name}", base_commit=base),
        test=TestSpec(commands=(TestCommand(shell=command),), time_limit_s=600),
        env=EnvSpec(language=language, setup_cmds=(setup,)),
        fail_to_pass=(f2p,),
        gold_patch=gold,
    )


def _gold_and_empty(task: Task, mirrors: Path, cache: Path) -> None:
    gold = pb.run(task, Candidate.gold(), repos=[mirrors], cache_dir=cache, network=True)
    assert gold.status is Status.RESOLVED, gold.reason
    assert any("env_setup_cmds run" in n for n in gold.notes), gold.notes
    empty = pb.run(task, Candidate.empty(), repos=[mirrors], cache_dir=cache, network=True)
    assert empty.status is Status.UNRESOLVED, empty.reason


NODE_TEST = """const test = require('node:test');
const assert = require('node:assert');
const { add } = require('../index.js');
test('adds', () => { assert.equal(add(2, 2), 4); });
"""


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("npm") is None, reason="npm is not installed")
def test_npm_install_runs_in_the_checkout(tmp_path: Path) -> None:
    """``npm install`` finds the repository's package.json (before: the environment directory's)."""
    pkg = '{"name": "adder", "version": "1.0.0", "scripts": {"postinstall": "echo ok > .installed"}}'
    mirrors, base = _mirror(
        tmp_path,
        "adder",
        {"package.json": pkg, "index.js": "exports.add = (a, b) => a - b;\n", "test/add.test.js": NODE_TEST},
    )
    gold = (
        "--- a/index.js\n+++ b/index.js\n@@ -1 +1 @@\n-exports.add = (a, b) => a - b;\n"
        "+exports.add = (a, b) => a + b;\n"
    )
    command = "test -f .installed && node --test test/"
    task = _row("adder", base, "javascript", "npm install", command, "adds", gold)
    _gold_and_empty(task, mirrors, tmp_path / "cache")


GO_TEST = """package adder

import "testing"

func TestAdd(t *testing.T) {
\tif Add(2, 2) != 4 {
\t\tt.Fatal("2+2")
\t}
}
"""


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("go") is None, reason="go is not installed")
def test_go_setup_is_online_in_module_mode_and_fills_the_env(tmp_path: Path) -> None:
    """The setup sees a real GOPROXY, module mode and the env's GOMODCACHE/GOCACHE; tests run offline."""
    check = (
        'go mod download && test "$(go env GOPROXY)" != off && test "$(go env GO111MODULE)" != off '
        '&& case "$(go env GOMODCACHE)$(go env GOCACHE)" in */envs/go-*gomodcache*/envs/go-*gocache) ;; '
        "*) exit 9;; esac"
    )
    mirrors, base = _mirror(
        tmp_path,
        "goadder",
        {
            "go.mod": "module example.com/adder\n\ngo 1.20\n",
            "adder.go": "package adder\n\nfunc Add(a, b int) int { return a - b }\n",
            "adder_test.go": GO_TEST,
        },
    )
    gold = (
        "--- a/adder.go\n+++ b/adder.go\n@@ -2,2 +2,2 @@\n \n-func Add(a, b int) int { return a - b }\n"
        "+func Add(a, b int) int { return a + b }\n"
    )
    task = _row("goadder", base, "go", check, "go test ./...", "example.com/adder.TestAdd", gold)
    _gold_and_empty(task, mirrors, tmp_path / "cache")


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("cargo") is None, reason="cargo is not installed")
def test_cargo_setup_is_not_offline(tmp_path: Path) -> None:
    toml = '[package]\nname = "adder"\nversion = "0.1.0"\nedition = "2021"\n'
    lib = "pub fn add(a: i32, b: i32) -> i32 { a - b }\n"
    test = "#[test]\nfn adds() { assert_eq!(adder::add(2, 2), 4); }\n"
    files = {"Cargo.toml": toml, "src/lib.rs": lib, "tests/add.rs": test}
    mirrors, base = _mirror(tmp_path, "rsadder", files)
    gold = (
        "--- a/src/lib.rs\n+++ b/src/lib.rs\n@@ -1 +1 @@\n-pub fn add(a: i32, b: i32) -> i32 { a - b }\n"
        "+pub fn add(a: i32, b: i32) -> i32 { a + b }\n"
    )
    setup = 'test "$CARGO_NET_OFFLINE" = false && cargo fetch'
    task = _row("rsadder", base, "rust", setup, "cargo test --test add", "adds", gold)
    _gold_and_empty(task, mirrors, tmp_path / "cache")


def test_a_maven_repository_row_gets_a_maven_env_whose_setup_fills_its_repository(tmp_path: Path) -> None:
    """No pom.xml in the task: the test command says Maven; setup commands download into ``<env>/m2``."""
    task = _row("j", "0" * 40, "java", "mvn -B install", "mvn -B test", "x", "")
    assert uses_maven(task)
    assert not uses_maven(task.model_copy(update={"test": TestSpec(commands=(TestCommand(shell="make"),))}))
    root = tmp_path / "env"
    (root / "m2").mkdir(parents=True)
    prepared = JavaEnv(cache_dir=tmp_path).activate(root, task)
    assert f"-Dmaven.repo.local={root / 'm2'}" in prepared.setup_env["MAVEN_OPTS"]
    assert any("offline" in line for line in prepared.prelude)  # the test phase stays offline


def test_build_outputs_left_by_a_setup_are_real_copies_in_each_run(tmp_path: Path) -> None:
    """Maven and Cargo rewrite files under target/ in place: a hard link to the cache would refuse that."""
    src = tmp_path / "tree"
    (src / "target" / "classes").mkdir(parents=True)
    (src / "target" / "classes" / "A.class").write_text("x")
    (src / "mod" / "target").mkdir(parents=True)
    (src / "mod" / "target" / "status.lst").write_text("y")
    (src / "Main.java").write_text("z")
    dest = tmp_path / "run"
    copy_tree(src, dest, link=True)
    assert (dest / "Main.java").stat().st_nlink == 2  # sources stay hard links to the cache
    assert (dest / "target" / "classes" / "A.class").stat().st_nlink == 1
    assert (dest / "mod" / "target" / "status.lst").stat().st_nlink == 1
    assert (dest / "target" / "classes" / "A.class").read_text() == "x"
