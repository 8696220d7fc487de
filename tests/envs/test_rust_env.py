"""The Rust environment: toolchain resolution, the key, the cached build, and runs through the harness."""

from __future__ import annotations

import json
import os
import shutil
import stat
import time
from pathlib import Path

import pytest

import patchbench as pb
from patchbench import Candidate, EnvSpec, FileEntry, Status, Task, TestCommand, TestSpec
from patchbench.envs import env_for
from patchbench.envs import rust as rust_env
from patchbench.envs.rust import (
    INFO_FILE,
    RustEnv,
    Toolchain,
    find_toolchain,
    manifests,
    prebuild_commands,
    wanted_toolchain,
)
from patchbench.errors import EnvError
from patchbench.workspace import unified_diff

HAVE_RUST = shutil.which("cargo") is not None and shutil.which("rustc") is not None
needs_rust = pytest.mark.skipif(not HAVE_RUST, reason="no Rust toolchain on PATH")
BUILTIN_ID = "rs-feed-scrollback-short-page"

# -- a small task with one registry dependency ------------------------------------------------------

CARGO_TOML = """[package]
name = "numfmt"
version = "0.1.0"
edition = "2021"

[dependencies]
itoa = "=1.0.19"
"""
LIB_BUGGY = """pub fn render(n: u64) -> String {
    let mut buf = itoa::Buffer::new();
    buf.format(n as u32).to_string()
}
"""
LIB_FIXED = LIB_BUGGY.replace("n as u32", "n")
HIDDEN = """#[test]
fn small_numbers() {
    assert_eq!(numfmt::render(0), "0");
    assert_eq!(numfmt::render(4096), "4096");
}

#[test]
fn numbers_past_u32() {
    assert_eq!(numfmt::render(5_000_000_000), "5000000000");
}
"""


def dep_task(*, cargo_toml: str = CARGO_TOML, lib: str = LIB_BUGGY, hidden: str = HIDDEN) -> Task:
    workspace = {"Cargo.toml": cargo_toml, "src/lib.rs": lib}
    return Task(
        id="rs-env-dep",
        language="rust",
        workspace=tuple(FileEntry(path=k, content=v) for k, v in workspace.items()),
        hidden_tests=(FileEntry(path="tests/render.rs", content=hidden),),
        test=TestSpec(commands=(TestCommand(argv=("cargo", "test")),), time_limit_s=300),
        env=EnvSpec(language="rust"),
        fail_to_pass=("numbers_past_u32",),
        pass_to_pass=("small_numbers",),
        gold_patch=unified_diff(workspace, {**workspace, "src/lib.rs": LIB_FIXED}),
    )


def builtin_task() -> Task:
    return pb.select(pb.load("builtin").tasks, [BUILTIN_ID])[0]


# -- toolchain and key (fast) -----------------------------------------------------------------------


@needs_rust
def test_describe_holds_the_resolved_toolchain_and_the_task_manifests(tmp_path: Path) -> None:
    desc = RustEnv(tmp_path).describe(dep_task())
    sysroot = Path(desc["sysroot"])
    assert (sysroot / "bin" / "rustc").is_file()
    assert not sysroot.is_symlink()
    assert desc["rustc"].startswith("rustc ")
    assert "release:" in desc["rustc"]
    assert desc["cargo"].startswith("cargo ")
    assert set(desc["manifests"]) == {"Cargo.toml"}
    assert desc["prebuild"] == [[[], ["test", "--no-run"]]]


@needs_rust
def test_the_key_follows_the_manifests_not_the_sources(tmp_path: Path) -> None:
    env = RustEnv(tmp_path)
    base = env.key(dep_task())
    assert env.key(dep_task(lib=LIB_FIXED)) == base
    assert env.key(dep_task(hidden=HIDDEN + "\n// another test file change\n")) == base
    assert env.key(dep_task(cargo_toml=CARGO_TOML.replace("=1.0.19", "=1.0.18"))) != base
    with_lock = dep_task().model_copy(
        update={"workspace": (*dep_task().workspace, FileEntry(path="Cargo.lock", content="version = 4\n"))}
    )
    assert env.key(with_lock) != base
    member = dep_task().model_copy(
        update={
            "hidden_tests": (
                *dep_task().hidden_tests,
                FileEntry(path="tests/helper/Cargo.toml", content='[package]\nname = "helper"\n'),
            )
        }
    )
    assert env.key(member) != base
    config = dep_task().model_copy(
        update={
            "workspace": (
                *dep_task().workspace,
                FileEntry(path=".cargo/config.toml", content="[build]\nrustflags = []\n"),
            )
        }
    )
    assert env.key(config) != base


@needs_rust
def test_the_key_follows_the_toolchain(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    env = RustEnv(tmp_path)
    real = env.toolchain(dep_task())
    base = env.key(dep_task())
    other = Toolchain(
        sysroot=real.sysroot,
        rustc=real.rustc,
        rustdoc=real.rustdoc,
        cargo=real.cargo,
        rustc_version=real.rustc_version.replace("release: ", "release: 0."),
        cargo_version=real.cargo_version,
    )
    monkeypatch.setattr(RustEnv, "toolchain", lambda self, task: other)
    assert env.key(dep_task()) != base


def test_the_language_maps_to_the_rust_env(tmp_path: Path) -> None:
    assert isinstance(env_for("rust", tmp_path), RustEnv)
    assert isinstance(env_for("Rust", tmp_path), RustEnv)


def test_a_missing_toolchain_is_an_env_error_naming_rustup(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(rust_env.shutil, "which", lambda name, *a, **k: None)
    with pytest.raises(EnvError, match=r"rustup.*rustc and cargo"):
        RustEnv(tmp_path).prepare(dep_task())
    assert not (tmp_path / "envs").exists() or not any((tmp_path / "envs").iterdir())


@needs_rust
def test_a_missing_linker_is_an_env_error_naming_gcc(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real_which = shutil.which

    def which(name: str, *args: object, **kwargs: object) -> str | None:
        return None if name == "cc" else real_which(name)

    monkeypatch.setattr(rust_env.shutil, "which", which)
    with pytest.raises(EnvError, match="apt-get install gcc"):
        RustEnv(tmp_path).prepare(dep_task())


@needs_rust
def test_a_toolchain_that_is_not_installed_falls_back_to_the_default_with_a_note() -> None:
    default = find_toolchain(None)
    assert default.note is None
    tc = find_toolchain("0.1.0")
    assert tc.sysroot == default.sysroot
    assert tc.note is not None
    assert "'0.1.0' was asked for but is not installed" in tc.note


@pytest.mark.parametrize(
    ("files", "image", "command", "wanted"),
    [
        ({}, None, ("cargo", "test"), None),
        ({}, "rust:1.79-slim", ("cargo", "test"), "1.79"),
        ({}, "docker.io/library/rust:1.80.1", ("cargo", "test"), "1.80.1"),
        (
            {"rust-toolchain.toml": '[toolchain]\nchannel = "1.85.0"\n'},
            "rust:1.79",
            ("cargo", "test"),
            "1.85.0",
        ),
        ({"rust-toolchain": "nightly-2025-01-01\n"}, None, ("cargo", "test"), "nightly-2025-01-01"),
        ({"rust-toolchain": '[toolchain]\nchannel = "beta"\n'}, None, ("cargo", "test"), "beta"),
        ({"rust-toolchain.toml": "[toolchain]\n"}, None, ("cargo", "+stable", "test"), "stable"),
    ],
)
def test_wanted_toolchain(
    files: dict[str, str], image: str | None, command: tuple[str, ...], wanted: str | None
) -> None:
    task = Task(
        id="t",
        language="rust",
        workspace=tuple(FileEntry(path=k, content=v) for k, v in {"Cargo.toml": "", **files}.items()),
        test=TestSpec(commands=(TestCommand(argv=command),)),
        env=EnvSpec(language="rust", image=image),
    )
    assert wanted_toolchain(task) == wanted


def test_prebuild_commands_mirror_the_cargo_options_of_the_test_commands() -> None:
    def task(*commands: TestCommand) -> Task:
        return Task(id="t", language="rust", test=TestSpec(commands=commands))

    assert prebuild_commands(task(TestCommand(argv=("cargo", "test", "--quiet")))) == [
        ({}, ["test", "--quiet", "--no-run"])
    ]
    assert prebuild_commands(
        task(
            TestCommand(
                shell="RUSTFLAGS=-Dwarnings cargo +nightly test -p core --features x --no-fail-fast -- a"
            ),
            TestCommand(argv=("cargo", "test", "--quiet")),
            TestCommand(argv=("cargo", "test", "--quiet")),
        )
    ) == [
        ({"RUSTFLAGS": "-Dwarnings"}, ["test", "-p", "core", "--features", "x", "--no-run"]),
        ({}, ["test", "--quiet", "--no-run"]),
    ]
    assert prebuild_commands(task(TestCommand(shell="cargo test --features $FEATURES"))) == [
        ({}, ["test", "--no-run"])
    ]
    assert prebuild_commands(task(TestCommand(argv=("make", "test")))) == [({}, ["test", "--no-run"])]


def test_manifests_are_read_from_the_task_with_hidden_tests_winning() -> None:
    task = Task(
        id="t",
        language="rust",
        workspace=(
            FileEntry(path="Cargo.toml", content="ws"),
            FileEntry(path="crates/a/Cargo.toml", content="a"),
            FileEntry(path="crates/a/src/lib.rs", content=""),
            FileEntry(path=".cargo/config.toml", content="c"),
            FileEntry(path="rust-toolchain.toml", content="r"),
        ),
        hidden_tests=(FileEntry(path="crates/a/Cargo.toml", content="hidden"),),
        test=TestSpec(commands=(TestCommand(argv=("cargo", "test")),)),
    )
    found = {p: e.content for p, e in manifests(task).items()}
    assert found == {
        ".cargo/config.toml": "c",
        "Cargo.toml": "ws",
        "crates/a/Cargo.toml": "hidden",
        "rust-toolchain.toml": "r",
    }


@needs_rust
def test_activate_exposes_the_toolchain_and_seeds_the_target_dir(tmp_path: Path) -> None:
    tc = find_toolchain(None)
    root = tmp_path / "rust-x"
    (root / "target" / "debug").mkdir(parents=True)
    info = {
        "sysroot": str(tc.sysroot),
        "rustc": str(tc.rustc),
        "rustdoc": str(tc.rustdoc),
        "cargo": str(tc.cargo),
        "note": "a note",
        "prebuild": [{"command": "cargo test --no-run", "ok": False, "exit_code": 101}],
    }
    (root / INFO_FILE).write_text(json.dumps(info))
    p = RustEnv(tmp_path).activate(root, dep_task())
    assert p.ro_paths[0] == root
    assert tc.sysroot in p.ro_paths or str(tc.sysroot).startswith("/usr/")
    assert p.path[0] == str(tc.sysroot / "bin")
    assert p.env["CARGO_HOME"] == str(root / "cargo-home")
    assert p.env["CARGO_NET_OFFLINE"] == "true"
    assert p.env["RUSTC"] == str(tc.rustc)
    assert "RUSTC_BOOTSTRAP" not in p.env  # the runner's business
    assert p.prelude[0] == 'export CARGO_TARGET_DIR="$PWD/target"'
    assert "cp -a" in p.prelude[1]
    assert p.notes[0] == "a note"
    assert "pre-build `cargo test --no-run` failed (exit 101)" in p.notes[1]
    shutil.rmtree(root / "target")
    assert len(RustEnv(tmp_path).activate(root, dep_task()).prelude) == 1


def test_activate_on_a_broken_environment_is_an_env_error(tmp_path: Path) -> None:
    with pytest.raises(EnvError, match="is broken"):
        RustEnv(tmp_path).activate(tmp_path, dep_task())


# -- building and running (slow) --------------------------------------------------------------------


@pytest.fixture(scope="module")
def cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("rust-env-cache")


def _no_write_bits(root: Path) -> bool:
    """Nothing the environment holds is writable (the base class's ``.ready`` marker aside)."""
    for dirpath, _dirs, files in os.walk(root):
        paths = [os.path.join(dirpath, f) for f in files if not (dirpath == str(root) and f == ".ready")]
        for name in [dirpath, *paths]:
            if not os.path.islink(name) and os.stat(name).st_mode & (
                stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH
            ):
                return False
    return True


@needs_rust
@pytest.mark.slow
def test_a_cold_gold_run_builds_the_env_and_resolves_with_the_candidate_code(cache: Path) -> None:
    # The first run on an empty cache builds the environment after the run's workspace was written:
    # nothing pre-built from the task's own (buggy) sources may stand in for the candidate's.
    v = pb.run(dep_task(), Candidate.gold(), cache_dir=cache)
    assert v.status is Status.RESOLVED, (v.reason, v.stderr_tail)
    assert v.env_cache_hit is False
    assert "Compiling numfmt" in v.stderr_tail
    assert "Compiling itoa" not in v.stderr_tail


@needs_rust
@pytest.mark.slow
def test_warm_prepare_is_a_cache_hit_with_prebuilt_dependencies_only(cache: Path) -> None:
    env = RustEnv(cache)
    t0 = time.monotonic()
    first = env.prepare(dep_task())  # built by the previous test, or now
    second = env.prepare(dep_task())
    assert second.cache_hit is True
    assert second.seconds < 1.0
    assert first.key == second.key
    root = second.root
    assert list((root / "cargo-home" / "registry").glob("cache/*/itoa-1.0.19.crate"))
    deps = [p.name for p in (root / "target" / "debug" / "deps").iterdir()]
    assert any(n.startswith("libitoa-") and n.endswith(".rlib") for n in deps)
    assert not any("numfmt" in n for n in deps), deps  # the task's own crate was cleaned out
    info = json.loads((root / INFO_FILE).read_text())
    assert info["cleaned"] == ["numfmt"]
    assert [s["ok"] for s in info["prebuild"]] == [True]
    assert _no_write_bits(root)
    assert time.monotonic() - t0 < 600


@needs_rust
@pytest.mark.slow
def test_warm_runs_compile_only_the_crate_offline(cache: Path) -> None:
    v = pb.run(dep_task(), Candidate.empty(), cache_dir=cache)
    assert v.env_cache_hit is True
    assert v.status is Status.UNRESOLVED
    assert [(c.id, c.passed) for c in v.fail_to_pass] == [("numbers_past_u32", False)]
    assert [(c.id, c.passed) for c in v.pass_to_pass] == [("small_numbers", True)]
    assert "Compiling itoa" not in v.stderr_tail
    v = pb.run(dep_task(), Candidate.gold(), cache_dir=cache)
    assert v.status is Status.RESOLVED, v.reason


@needs_rust
@pytest.mark.slow
def test_a_candidate_adding_a_dependency_offline_does_not_build(cache: Path) -> None:
    toml = CARGO_TOML + 'ryu = "1"\n'
    v = pb.run(dep_task(), Candidate.files({"Cargo.toml": toml, "src/lib.rs": LIB_FIXED}), cache_dir=cache)
    assert v.status is Status.UNRESOLVED
    assert "did not build" in v.reason
    assert "ryu" in v.reason


@needs_rust
@pytest.mark.slow
def test_a_candidate_that_does_not_compile_is_unresolved_with_the_compiler_message(cache: Path) -> None:
    task = builtin_task()
    broken = next(f.content for f in task.workspace if f.path == "src/pages.rs").replace(
        "let skip = n.saturating_mul(self.per_page);", 'let skip: usize = "many";', 1
    )
    assert broken != next(f.content for f in task.workspace if f.path == "src/pages.rs")
    v = pb.run(task, Candidate.files({"src/pages.rs": broken}), cache_dir=cache)
    assert v.status is Status.UNRESOLVED
    assert v.reason.startswith("the code did not build: error[E0308]: mismatched types")
    assert "src/pages.rs" in v.reason
    assert v.tests == ()
    # typed for clients (validate's does-not-build signal), not read back from the reason text
    assert v.build_error is not None and "error[E0308]" in v.build_error


@needs_rust
@pytest.mark.slow
def test_the_builtin_task_fails_exactly_its_f2p_before_and_passes_after(cache: Path) -> None:
    task = builtin_task()
    for _ in range(2):
        empty = pb.run(task, Candidate.empty(), cache_dir=cache)
        assert empty.status is Status.UNRESOLVED
        assert [c.id for c in empty.fail_to_pass if not c.passed] == list(task.fail_to_pass)
        assert all(c.passed for c in empty.pass_to_pass)
        failing = {t.id for t in empty.tests if not t.outcome.ok}
        assert failing == set(task.fail_to_pass)
        gold = pb.run(task, Candidate.gold(), cache_dir=cache)
        assert gold.status is Status.RESOLVED, gold.reason
        assert gold.env_cache_hit is True
        assert gold.durations.test_s is not None and gold.durations.test_s < 10


@needs_rust
@pytest.mark.slow
def test_a_suite_larger_than_the_captured_output_is_read_completely(cache: Path) -> None:
    # 2500 tests print ~380 KB of JSON events, more than the sandbox keeps of standard output (256 KiB):
    # the runner reads the copy it keeps in the report directory.
    names = [f"t{i:05d}" for i in range(2500)]
    body = (
        "macro_rules! many {\n"
        "    ($($name:ident)*) => { $( #[test] fn $name() { assert!(bigsuite::ok()); } )* };\n"
        "}\n"
        f"many!({' '.join(names)});\n"
    )
    task = Task(
        id="rs-env-big",
        language="rust",
        workspace=(
            FileEntry(
                path="Cargo.toml",
                content='[package]\nname = "bigsuite"\nversion = "0.1.0"\nedition = "2021"\n',
            ),
            FileEntry(path="src/lib.rs", content="pub fn ok() -> bool { true }\n"),
        ),
        hidden_tests=(FileEntry(path="tests/many.rs", content=body),),
        test=TestSpec(commands=(TestCommand(argv=("cargo", "test", "--quiet")),), time_limit_s=300),
        env=EnvSpec(language="rust"),
        pass_to_pass=(names[0], names[1250], names[-1]),
    )
    v = pb.run(task, Candidate.empty(), cache_dir=cache)
    assert v.status is Status.RESOLVED, (v.reason, v.notes)
    assert len(v.tests) == 2500


@needs_rust
def test_without_a_sandbox_the_prebuild_is_an_env_error_never_a_host_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The pre-build runs the crates' build scripts: with bubblewrap missing it used to run them on the
    host, as root, with only a log warning. It now goes through the one exec path with a sandbox or not
    at all (an EnvError: infrastructure)."""
    from patchbench.errors import SandboxError

    def no_bwrap(name: str) -> None:
        raise SandboxError("bubblewrap (bwrap) is not installed")

    def host_run(*args: object, **kwargs: object) -> None:
        raise AssertionError(f"a command ran on the host: {args}")

    tc = find_toolchain()
    monkeypatch.setattr(rust_env, "get_sandbox", no_bwrap)
    monkeypatch.setattr(rust_env.subprocess, "run", host_run)
    env = RustEnv(tmp_path / "cache")
    ws, dest = tmp_path / "ws", tmp_path / "dest"
    ws.mkdir()
    dest.mkdir()
    with pytest.raises(EnvError, match="bubblewrap"):
        env._prebuild(tc, dest, ws, "/workspace", {}, ["test", "--no-run"])
