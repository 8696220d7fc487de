"""The Go environment: key, toolchain checks, GOPATH mode, and (slow) a real build used by the harness."""

from __future__ import annotations

import os
import shutil
import stat
import time
from pathlib import Path

import pytest

import patchbench
from patchbench import Candidate, FileEntry, Task, TestCommand, TestSpec
from patchbench.data import builtin_path
from patchbench.envs import env_for
from patchbench.envs.go import FALLBACK_GO, RUN_GOCACHE, GoEnv, goflags, module_root, warm_args
from patchbench.errors import EnvError
from patchbench.formats.hardbug import read_task_dir
from patchbench.task import EnvSpec
from patchbench.verdict import Status

GO = shutil.which("go") or next((p for p in FALLBACK_GO if os.access(p, os.X_OK)), None)
needs_go = pytest.mark.skipif(GO is None, reason="go is not installed")

BUILTIN_ID = "go-logger-derived-fields-clobbered"

MOD = "module example.com/tiny\n\ngo 1.22\n"
SRC = "package tiny\n\n// Double doubles n.\nfunc Double(n int) int { return 2 * n }\n"
TEST = (
    'package tests\n\nimport (\n\t"testing"\n\n\t"example.com/tiny"\n)\n\n'
    'func TestDouble(t *testing.T) {\n\tif tiny.Double(2) != 4 {\n\t\tt.Fatal("bad")\n\t}\n}\n'
)


def go_task(
    files: dict[str, str] | None = None,
    *,
    tests: dict[str, str] | None = None,
    command: tuple[str, ...] = ("go", "test", "./..."),
    workdir: str = ".",
    setup_cmds: tuple[str, ...] = (),
    image: str | None = None,
) -> Task:
    files = {"go.mod": MOD, "tiny.go": SRC} if files is None else files
    tests = {"tests/tiny_test.go": TEST} if tests is None else tests
    return Task(
        id="go-tiny",
        language="go",
        workspace=tuple(FileEntry(path=k, content=v) for k, v in files.items()),
        hidden_tests=tuple(FileEntry(path=k, content=v) for k, v in tests.items()),
        test=TestSpec(commands=(TestCommand(argv=command),), workdir=workdir),
        env=EnvSpec(language="go", image=image, setup_cmds=setup_cmds),
    )


# -- fast: no build ---------------------------------------------------------------------------------


def test_go_language_maps_to_this_env(tmp_path: Path) -> None:
    assert isinstance(env_for("go", tmp_path), GoEnv)


def test_missing_toolchain_is_an_env_error_naming_what_to_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_which = shutil.which

    def which(name: str, *args: object, **kwargs: object) -> str | None:
        return None if name == "go" else real_which(name)

    monkeypatch.setattr(shutil, "which", which)
    monkeypatch.setattr("patchbench.envs.go.FALLBACK_GO", (str(tmp_path / "no" / "go"),))
    with pytest.raises(EnvError, match=r"go is not installed: install Go .*https://go.dev/dl/"):
        GoEnv(tmp_path).prepare(go_task())
    verdict = patchbench.run(go_task(), Candidate.empty(), cache_dir=tmp_path)
    assert verdict.status is Status.INFRA_ERROR
    assert "install Go" in verdict.reason


@needs_go
def test_key_follows_toolchain_manifests_and_setup_but_not_sources(tmp_path: Path) -> None:
    env = GoEnv(tmp_path)
    base = env.key(go_task())
    assert base.startswith("go-")
    assert env.key(go_task()) == base
    # Sources and hidden tests are not in the key: the cache is warmed, not defined, by them.
    assert env.key(go_task({"go.mod": MOD, "tiny.go": SRC + "\n// more\n"})) == base
    assert env.key(go_task(tests={"tests/tiny_test.go": TEST + "\n"})) == base
    changed = {
        env.key(go_task({"go.mod": MOD.replace("1.22", "1.21"), "tiny.go": SRC})),
        env.key(go_task({"go.mod": MOD, "go.sum": "example.com/x v1.0.0 h1:abc=\n", "tiny.go": SRC})),
        env.key(go_task({"go.mod": MOD, "tiny.go": SRC, "sub/go.mod": "module example.com/sub\n"})),
        env.key(go_task({"tiny.go": SRC})),  # no go.mod: GOPATH mode
        env.key(go_task(setup_cmds=("go version",))),
        # a -race build makes other objects: a cache warmed without it rebuilt the standard library with
        # the race detector in every run (20 s of a 23 s test phase on go-logger)
        env.key(go_task(command=("env", "GORACE=atexit_sleep_ms=0", "go", "test", "-race", "./..."))),
    }
    assert base not in changed
    assert len(changed) == 6
    # Manifests under vendor/ or testdata/ are not the task's modules.
    assert env.key(go_task({"go.mod": MOD, "tiny.go": SRC, "testdata/x/go.mod": "module x\n"})) == base


@needs_go
def test_go_directive_newer_than_the_toolchain_is_an_env_error(tmp_path: Path) -> None:
    task = go_task({"go.mod": "module example.com/tiny\n\ngo 9.99\n", "tiny.go": SRC})
    with pytest.raises(EnvError, match=r"go.mod asks for go 9.99 .*install Go 9.99 or newer"):
        GoEnv(tmp_path).prepare(task)
    assert not list((tmp_path / "envs").glob("go-*/.ready"))


@needs_go
def test_activation_is_offline_with_a_writable_cache_seeded_by_the_prelude(tmp_path: Path) -> None:
    root = tmp_path / "root"
    prepared = GoEnv(tmp_path).activate(root, go_task())
    env = prepared.env
    assert env["GOPROXY"] == "off"
    assert env["GOSUMDB"] == "off"
    assert env["GOTOOLCHAIN"] == "local"
    assert env["GOENV"] == "off"
    assert env["GOFLAGS"] == "-mod=readonly -buildvcs=false"
    assert env["GOMODCACHE"] == str(root / "gomodcache")
    assert env["GOCACHE"] == RUN_GOCACHE
    assert "GO111MODULE" not in env
    assert root in prepared.ro_paths
    assert any(str(root / "gocache") in line and RUN_GOCACHE in line for line in prepared.prelude)
    assert prepared.path[0].endswith("/bin")


def test_without_go_mod_tests_run_in_gopath_mode_and_vendored_modules_use_vendor() -> None:
    gopath = go_task({"tiny.go": SRC})
    assert module_root(gopath) is None
    assert goflags(gopath) == "-buildvcs=false"
    vendored = go_task({"go.mod": MOD, "tiny.go": SRC, "vendor/modules.txt": "# none\n"})
    assert goflags(vendored) == "-mod=vendor -buildvcs=false"
    nested = go_task({"svc/go.mod": MOD, "svc/tiny.go": SRC}, workdir="svc/cmd")
    assert module_root(nested) == "svc"


@needs_go
def test_gopath_mode_activation_sets_go111module_off(tmp_path: Path) -> None:
    env = GoEnv(tmp_path).activate(tmp_path / "root", go_task({"tiny.go": SRC})).env
    assert env["GO111MODULE"] == "off"
    assert "-mod" not in env["GOFLAGS"]


def test_build_cache_is_warmed_with_the_task_go_test_arguments() -> None:
    assert warm_args(go_task()) == ["./..."]
    assert warm_args(go_task(command=("timeout", "60", "go", "test", "-race", "./pkg/..."))) == [
        "-race",
        "./pkg/...",
    ]
    assert warm_args(go_task(command=("go", "test", "-json", "."))) == ["."]
    assert warm_args(go_task(command=("make", "test"))) == ["./..."]


# -- slow: a real environment, used by the harness ---------------------------------------------------


@pytest.fixture(scope="module")
def builtin_task() -> Task:
    return read_task_dir(builtin_path() / "tasks" / BUILTIN_ID)


@pytest.fixture(scope="module")
def cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("go-env-cache")


@pytest.mark.slow
@needs_go
def test_cold_build_then_warm_prepare_is_a_cache_hit(builtin_task: Task, cache: Path) -> None:
    env = GoEnv(cache)
    t0 = time.monotonic()
    cold = env.prepare(builtin_task)
    cold_s = time.monotonic() - t0
    assert not cold.cache_hit
    warm = env.prepare(builtin_task)
    assert warm.cache_hit
    assert warm.key == cold.key
    assert warm.seconds < 1.0, (cold_s, warm.seconds)
    print(f"go env: cold prepare {cold_s:.1f}s, warm prepare {warm.seconds * 1000:.0f}ms")
    gocache = warm.root / "gocache"
    entries = [p for p in gocache.rglob("*") if p.is_file()]
    assert len(entries) > 100  # the standard library packages the tests need
    assert all(not (p.stat().st_mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH)) for p in entries[:50])
    assert "\nexit 0\n" in (warm.root / "warm.log").read_text()
    assert not warm.notes


@pytest.mark.slow
@needs_go
def test_gold_resolves_and_empty_fails_exactly_the_f2p_tests(builtin_task: Task, cache: Path) -> None:
    gold = patchbench.run(builtin_task, Candidate.gold(), cache_dir=cache)
    assert gold.status is Status.RESOLVED, gold.reason
    assert gold.env_cache_hit
    assert gold.durations.test_s < 10
    empty = patchbench.run(builtin_task, Candidate.empty(), cache_dir=cache)
    assert empty.status is Status.UNRESOLVED
    failed = {t.id.rsplit(".", 1)[-1] for t in empty.tests if not t.outcome.ok}
    assert failed == set(builtin_task.fail_to_pass)


@pytest.mark.slow
@needs_go
def test_a_candidate_that_does_not_compile_is_unresolved_with_the_compiler_message(
    builtin_task: Task, cache: Path
) -> None:
    source = builtin_task.workspace_map()["field.go"]
    broken = source.replace("return append(base, extra...)", "return append(base, kv...)")
    assert broken != source
    verdict = patchbench.run(builtin_task, Candidate.files({"field.go": broken}), cache_dir=cache)
    assert verdict.status is Status.UNRESOLVED
    assert "did not build" in verdict.reason
    assert "cannot use kv (variable of type []any) as []Field value" in verdict.reason
    assert "field.go:" in verdict.reason
