"""Rust environments: a toolchain exposed read-only, the task's crates fetched, its dependencies pre-built.

Toolchain. ``cargo``/``rustc`` on this kind of machine are rustup proxies (``~/.cargo/bin``) that need
rustup and its home at run time. The environment resolves the proxies once, at setup, to the toolchain
directory itself (the sysroot, ``~/.rustup/toolchains/<name>``), exposes that directory read-only at the
same path and puts its ``bin`` first on PATH (``RUSTC``/``RUSTDOC`` name the binaries too): the sandbox
needs no rustup. Which toolchain: a ``+toolchain`` in the test command, else the channel of the task's
``rust-toolchain(.toml)``, else the version of its image (``rust:1.79``), when installed; otherwise the
default toolchain, with a note. Nothing is ever installed. A Debian ``rustc``/``cargo`` under ``/usr``
works the same way (``/usr`` is always visible). rustc links through ``cc``, which must be installed.

Setup phase (network, outside the sandbox):

1. the task's workspace and hidden tests (never a candidate's files) are written to a scratch directory
   (a repository task's checkout, from the default repository sources, when it has one; without one the
   environment is the toolchain alone, with a note);
2. ``cargo fetch`` downloads every crate of the lockfile into ``cargo-home/`` inside the environment (it
   runs no code of the crates; without ``Cargo.lock`` it resolves one);
3. the task's ``setup_cmds`` run there (trusted, network allowed);
4. the dependencies are pre-built with ``cargo test --no-run`` (with the cargo options of the task's own
   ``cargo test`` commands: features, packages, profile) into ``target/`` inside the environment (skipped
   when ``cargo metadata`` shows no package outside the task's own: nothing to pre-build). This
   compiles build scripts and proc macros and runs them, so it runs *in the sandbox* (offline,
   unprivileged), with the workspace at ``/workspace`` and the environment bound writable at its own path
   (environments are built in place): registry source paths are part of cargo's fingerprints, so they
   must read the same in the test phase. The buggy code may not compile
   with the hidden tests; that is fine (cargo builds every dependency before the crate that fails) and is
   only noted. ``RUSTC_BOOTSTRAP`` is set as :mod:`patchbench.runners.cargo` sets it, because build
   scripts that watch it (``proc-macro2``...) would otherwise rebuild their whole dependency chain at test
   time; ``CARGO_INCREMENTAL=0`` as in the test phase (one build per run gains nothing from it);
5. the task's own packages (everything with a path source) are removed from ``target/`` again with
   ``cargo clean -p``: their artifacts were built from the scratch copy, and a run whose workspace files
   are older than them (written before the environment was built, or copied with their mtimes) would
   pass cargo's mtime check and run stale code.

Test phase (offline): ``CARGO_HOME`` is the environment's ``cargo-home/``, read-only, with
``CARGO_NET_OFFLINE=true``. cargo needs no write access there when every crate was fetched and unpacked
at setup (measured: its package-cache lock is skipped on a read-only home). The prelude sets
``CARGO_TARGET_DIR=$PWD/target`` (in the workspace, which is on disk: ``/tmp`` is a tmpfs capped at
1 GiB and charged to the memory limit, and a target dir in the workspace is reused by the run's next
test command) and, once per run, seeds it with ``cp -a`` of the pre-built ``target/`` (``chmod -R u+w``
afterwards: the cache is read-only). A symlink farm (``cp -as``) was tried: it is cheaper for huge
targets but breaks as soon as cargo rebuilds a pre-built unit in place (measured: a build script watching
``RUSTC_BOOTSTRAP`` reran, and cargo failed writing ``.fingerprint/serde-*/lib-serde`` through the link
into the read-only cache, an error that would have been blamed on the candidate), so the copy it is.

Measured on this machine (2 cores) for a crate depending on serde (derive) and serde_json, 68 MB of
pre-built target: cold ``cargo test`` in the sandbox 10.4 s; seeded 0.7 s, of which the copy takes
0.04 s (page cache warm). The copy stays far below a cold compile until targets of several GB.

The key holds the toolchain (sysroot path, ``rustc -vV``, ``cargo -V``), every ``Cargo.toml``,
``Cargo.lock``, ``rust-toolchain(.toml)`` and ``.cargo/config(.toml)`` of the task, the pre-build
commands, the setup commands and, for a repository task, the repository and commit.
"""

from __future__ import annotations

import functools
import hashlib
import json
import logging
import os
import posixpath
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..checkouts import RepoCache
from ..errors import EnvError, SandboxError
from ..runners._commands import program_words, simple_commands
from ..runners.cargo import LIBTEST_UNSTABLE, is_cargo_test
from ..sandbox import Bind, Limits, get_sandbox
from ..task import FileEntry, Task, TestCommand
from ..workspace import inject_tests, materialise
from ._base import Env, Prepared
from ._exec import env_variables, exec_in_env

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

log = logging.getLogger("patchbench.envs.rust")

#: Bumped when the layout of a built environment changes.
LAYOUT = 1
#: The file a built environment describes itself in.
INFO_FILE = "rust-env.json"
#: Where the pre-build sees the task's workspace (the harness binds it there too).
SANDBOX_WORKSPACE = "/workspace"
#: Longest setup step (fetch, pre-build).
SETUP_TIMEOUT_S = 1800.0
#: Variables set for every cargo of the pre-build and the test phase.
CARGO_COMMON_ENV = {
    "CARGO_NET_OFFLINE": "true",
    "CARGO_INCREMENTAL": "0",
    "CARGO_TERM_COLOR": "never",
    "RUSTC_BOOTSTRAP": LIBTEST_UNSTABLE,
}
_MANIFEST_NAMES = frozenset({"Cargo.toml", "Cargo.lock", "rust-toolchain", "rust-toolchain.toml"})
_CONFIG_NAMES = frozenset({".cargo/config", ".cargo/config.toml"})
_IMAGE_VERSION = re.compile(r"(?:^|/)rust:(?P<v>\d+\.\d+(?:\.\d+)?)")
_BASE_DIRS = ("/usr/", "/bin/", "/lib/", "/etc/", "/opt/")
#: Host variables that would make the setup steps build differently from the sandboxed test phase.
_HOST_BUILD_VARS = frozenset(
    {
        "CARGO_HOME",
        "CARGO_INCREMENTAL",
        "CARGO_ENCODED_RUSTFLAGS",
        "RUSTFLAGS",
        "RUSTDOCFLAGS",
        "RUSTC",
        "RUSTDOC",
        "RUSTC_WRAPPER",
        "RUSTC_WORKSPACE_WRAPPER",
        "RUSTUP_TOOLCHAIN",
    }
)


# -- the toolchain ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Toolchain:
    """A Rust toolchain resolved to real paths (no rustup proxy).

    Attributes:
        sysroot: the toolchain directory (``rustc --print sysroot``), resolved.
        rustc: the rustc binary.
        rustdoc: the rustdoc binary.
        cargo: the cargo binary.
        rustc_version: ``rustc -vV``.
        cargo_version: ``cargo -V``.
        note: why this is not the toolchain the task asked for, when it is not.
    """

    sysroot: Path
    rustc: Path
    rustdoc: Path
    cargo: Path
    rustc_version: str
    cargo_version: str
    note: str | None = None

    @property
    def bin(self) -> Path:
        """The directory put first on PATH."""
        return self.rustc.parent


_MISSING = (
    "no Rust toolchain found (rustc and cargo are not on PATH): install one with rustup "
    "(https://rustup.rs, then `rustup toolchain install stable`) or the Debian packages rustc and cargo"
)


def _run_text(argv: list[str], what: str, *, cwd: str = "/", env: dict[str, str] | None = None) -> str:
    try:
        r = subprocess.run(argv, capture_output=True, text=True, timeout=120, cwd=cwd, env=env, check=False)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise EnvError(f"{what} failed: {e}") from e
    if r.returncode != 0:
        raise EnvError(f"{what} failed (exit {r.returncode}): {' '.join(r.stderr.split())[-300:]}")
    return r.stdout.strip()


def _rustup_env() -> dict[str, str]:
    # Never let rustup download a toolchain while resolving one.
    env = {k: v for k, v in os.environ.items() if k not in ("RUSTUP_TOOLCHAIN", "RUSTC", "RUSTDOC")}
    env["RUSTUP_AUTO_INSTALL"] = "0"
    return env


def _installed_toolchains(rustup: str) -> list[str]:
    try:
        out = _run_text([rustup, "toolchain", "list"], "rustup toolchain list", env=_rustup_env())
    except EnvError:
        return []
    return [line.split()[0] for line in out.splitlines() if line.strip()]


def _matching_toolchain(rustup: str, wanted: str) -> str | None:
    """The installed toolchain name for a wanted channel/version (``1.79`` matches ``1.79.0-x86_64...``)."""
    names = _installed_toolchains(rustup)
    for name in names:
        if name == wanted or name.startswith(wanted + "-"):
            return name
    if re.fullmatch(r"\d+\.\d+", wanted):
        for name in names:
            if name.startswith(wanted + "."):
                return name
    return None


def _sysroot_of(rustc: str, env: dict[str, str]) -> Path:
    return Path(
        os.path.realpath(_run_text([rustc, "--print", "sysroot"], f"{rustc} --print sysroot", env=env))
    )


@functools.lru_cache(maxsize=16)
def _facts(rustc: str, cargo: str, stamp: float) -> tuple[str, str]:
    """``rustc -vV`` and ``cargo -V``; cached per binary and modification time."""
    env = {**_rustup_env(), "RUSTC": rustc}
    return (
        _run_text([rustc, "-vV"], f"{rustc} -vV", env=env),
        _run_text([cargo, "-V"], f"{cargo} -V", env=env),
    )


def find_toolchain(wanted: str | None = None) -> Toolchain:
    """The toolchain to use: ``wanted`` when installed, else the default one (with a note).

    Raises:
        EnvError: there is no Rust toolchain at all, or it is incomplete; the message says what to install.
    """
    rustup = shutil.which("rustup")
    env = _rustup_env()
    note: str | None = None
    sysroot: Path | None = None
    if rustup is not None:
        if wanted:
            name = _matching_toolchain(rustup, wanted)
            if name is not None:
                rustc = _run_text(
                    [rustup, "which", "--toolchain", name, "rustc"], f"rustup which {name}", env=env
                )
                sysroot = _sysroot_of(rustc, env)
        if sysroot is None:
            try:
                rustc = _run_text([rustup, "which", "rustc"], "rustup which rustc", env=env)
            except EnvError as e:
                raise EnvError(f"{_MISSING} ({e})") from None
            sysroot = _sysroot_of(rustc, env)
    else:
        rustc_on_path = shutil.which("rustc")
        if rustc_on_path is None or shutil.which("cargo") is None:
            raise EnvError(_MISSING)
        sysroot = _sysroot_of(rustc_on_path, env)
    rustc_bin = sysroot / "bin" / "rustc"
    rustdoc_bin = sysroot / "bin" / "rustdoc"
    cargo_bin = sysroot / "bin" / "cargo"
    if not cargo_bin.exists():
        # A distribution's cargo may live apart from rustc's sysroot (it is a real binary there).
        found = shutil.which("cargo")
        if found is None or os.path.basename(os.path.realpath(found)) == "rustup":
            raise EnvError(
                f"the toolchain at {sysroot} has no cargo: install cargo (rustup component add cargo)"
            )
        cargo_bin = Path(os.path.realpath(found))
    for b in (rustc_bin, rustdoc_bin):
        if not b.exists():
            raise EnvError(
                f"the toolchain at {sysroot} has no {b.name}: reinstall it (rustup toolchain install)"
            )
    rustc_v, cargo_v = _facts(str(rustc_bin), str(cargo_bin), rustc_bin.stat().st_mtime)
    if wanted and not _version_matches(wanted, sysroot, rustc_v):
        release = next((ln for ln in rustc_v.splitlines() if ln.startswith("release:")), "release: ?")
        note = (
            f"Rust toolchain {wanted!r} was asked for but is not installed; "
            f"using {sysroot.name} ({release.split(':', 1)[1].strip()})"
        )
    return Toolchain(
        sysroot=sysroot,
        rustc=rustc_bin,
        rustdoc=rustdoc_bin,
        cargo=cargo_bin,
        rustc_version=rustc_v,
        cargo_version=cargo_v,
        note=note,
    )


def _version_matches(wanted: str, sysroot: Path, rustc_v: str) -> bool:
    if sysroot.name == wanted or sysroot.name.startswith(wanted + "-"):
        return True
    release = next(
        (ln.split(":", 1)[1].strip() for ln in rustc_v.splitlines() if ln.startswith("release:")), ""
    )
    return release == wanted or release.startswith(wanted + ".")


# -- what the task brings -----------------------------------------------------------------------


def task_files(task: Task) -> dict[str, FileEntry]:
    """The task's files by path, hidden tests winning over the workspace (never a candidate's)."""
    files = {f.path: f for f in task.workspace}
    files.update({f.path: f for f in task.hidden_tests})
    return files


def manifests(task: Task) -> dict[str, FileEntry]:
    """Every file of the task that decides what cargo fetches and builds."""
    out: dict[str, FileEntry] = {}
    for path, entry in task_files(task).items():
        name = posixpath.basename(path)
        if name in _MANIFEST_NAMES or any(path == c or path.endswith("/" + c) for c in _CONFIG_NAMES):
            out[path] = entry
    return dict(sorted(out.items()))


def _simple_commands(command: TestCommand) -> list[list[str]]:
    split = simple_commands
    if command.shell is not None:
        return split(command.shell)
    argv = list(command.argv or ())
    if argv and os.path.basename(argv[0]) in ("bash", "sh"):
        for j, arg in enumerate(argv[1:-1], start=1):
            if arg.startswith("-") and not arg.startswith("--") and "c" in arg:
                return split(argv[j + 1])
    return [argv]


def _cargo_test_commands(task: Task) -> list[tuple[dict[str, str], list[str]]]:
    """(leading VAR=value assignments, cargo arguments) of every ``cargo test`` in the test commands."""
    found: list[tuple[dict[str, str], list[str]]] = []
    for command in task.test.commands:
        for words in _simple_commands(command):
            prog = program_words(words)
            if not is_cargo_test(prog):
                continue
            assigns: dict[str, str] = {}
            for w in words[: len(words) - len(prog)]:
                k, eq, v = w.partition("=")
                if eq and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", k):
                    assigns[k] = v
            found.append((assigns, prog[1:]))
    return found


def wanted_toolchain(task: Task) -> str | None:
    """The toolchain the task asks for: ``cargo +X test``, ``rust-toolchain(.toml)``, ``rust:X`` image."""
    for _, args in _cargo_test_commands(task):
        plus = next((a for a in args if a.startswith("+")), None)
        if plus and len(plus) > 1:
            return plus[1:]
    files = task_files(task)
    workdir = posixpath.normpath(task.test.workdir or ".")
    for d in _dirs_up(workdir):
        toml_entry = files.get(posixpath.join(d, "rust-toolchain.toml") if d else "rust-toolchain.toml")
        if toml_entry is not None:
            try:
                channel = tomllib.loads(toml_entry.data().decode("utf-8")).get("toolchain", {}).get("channel")
            except (tomllib.TOMLDecodeError, UnicodeDecodeError):
                channel = None
            if isinstance(channel, str) and channel.strip():
                return channel.strip()
        plain = files.get(posixpath.join(d, "rust-toolchain") if d else "rust-toolchain")
        if plain is not None:
            text = plain.data().decode("utf-8", errors="replace").strip()
            if text.startswith("[") or "channel" in text:
                try:
                    channel = tomllib.loads(text).get("toolchain", {}).get("channel")
                except tomllib.TOMLDecodeError:
                    channel = None
                if isinstance(channel, str) and channel.strip():
                    return channel.strip()
            elif text:
                return text.splitlines()[0].strip()
    m = _IMAGE_VERSION.search(task.env.image or "")
    return m.group("v") if m else None


def _dirs_up(workdir: str) -> list[str]:
    """``workdir`` and its parents up to the workspace root (``""``)."""
    out: list[str] = []
    d = "" if workdir in (".", "") else workdir
    while True:
        out.append(d)
        if not d:
            return out
        d = posixpath.dirname(d)


def prebuild_commands(task: Task) -> list[tuple[dict[str, str], list[str]]]:
    """The ``cargo test --no-run`` commands of the pre-build: one per distinct ``cargo test`` of the task.

    Each keeps the command's cargo options (before ``--``) and its leading ``VAR=value`` assignments
    (``RUSTFLAGS``...), drops ``+toolchain`` (the toolchain is chosen already) and ``--no-fail-fast``, and
    adds ``--no-run``. A command with shell expansions (``$X``, backquotes) is not mirrored. Without any
    usable ``cargo test`` the pre-build is plain ``cargo test --no-run``.
    """
    out: list[tuple[dict[str, str], list[str]]] = []
    for assigns, args in _cargo_test_commands(task):
        cargo_args = args[: args.index("--")] if "--" in args else list(args)
        if any(("$" in a or "`" in a) for a in [*cargo_args, *assigns.values()]):
            continue
        kept = [a for a in cargo_args if not a.startswith("+") and a != "--no-fail-fast"]
        cmd = (assigns, [*kept, "--no-run"])
        if cmd not in out:
            out.append(cmd)
    return out or [({}, ["test", "--no-run"])]


def _sha(entry: FileEntry) -> str:
    return hashlib.sha256(entry.data()).hexdigest()


# -- the environment ----------------------------------------------------------------------------


class RustEnv(Env):
    """A resolved toolchain, the task's crates in a private ``CARGO_HOME`` and pre-built dependencies."""

    name = "rust"
    languages = ("rust",)

    def toolchain(self, task: Task) -> Toolchain:
        """The toolchain for ``task`` (see :func:`find_toolchain`)."""
        return find_toolchain(wanted_toolchain(task))

    def describe(self, task: Task) -> dict[str, Any]:
        tc = self.toolchain(task)
        return {
            "layout": LAYOUT,
            # dependencies pre-built with another RUSTC_BOOTSTRAP would rebuild in every run
            "bootstrap": CARGO_COMMON_ENV["RUSTC_BOOTSTRAP"],
            "sysroot": str(tc.sysroot),
            "rustc": tc.rustc_version,
            "cargo": tc.cargo_version,
            "manifests": {p: _sha(e) for p, e in manifests(task).items()},
            "workdir": posixpath.normpath(task.test.workdir or "."),
            "prebuild": [[sorted(a.items()), c] for a, c in prebuild_commands(task)],
            "setup_cmds": list(task.env.setup_cmds),
            # A repository's manifests are not in the task: the environment is per repository and commit.
            "repository": (
                [task.repository.repo, task.repository.base_commit] if task.repository is not None else None
            ),
        }

    def build(self, task: Task, dest: Path) -> None:
        tc = self.toolchain(task)
        if shutil.which("cc") is None:
            raise EnvError("rustc links through `cc`, which is not installed: apt-get install gcc")
        home = dest / "cargo-home"
        target = dest / "target"
        home.mkdir()
        info: dict[str, Any] = {
            "sysroot": str(tc.sysroot),
            "rustc": str(tc.rustc),
            "rustdoc": str(tc.rustdoc),
            "cargo": str(tc.cargo),
            "note": tc.note,
            "project": False,
            "prebuild": [],
        }
        with tempfile.TemporaryDirectory(prefix="patchbench-rust-") as tmp:
            ws = Path(tmp) / "workspace"
            if not self._task_tree(task, ws, info):
                ws.mkdir(parents=True, exist_ok=True)
            inject_tests(task.hidden_tests, ws)
            rel = posixpath.normpath(task.test.workdir or ".")
            workdir = ws if rel == "." else ws / rel
            workdir.mkdir(parents=True, exist_ok=True)
            host_env = self._cargo_env(tc, home, target, online=True)
            info["project"] = self._is_project(tc, workdir, host_env)
            if info["project"]:
                t0 = time.monotonic()
                _check([str(tc.cargo), "fetch"], "cargo fetch", cwd=workdir, env=host_env)
                info["fetch_s"] = round(time.monotonic() - t0, 2)
            # A repository task's setup commands run in its checkout (patchbench.repos.prepare_tree).
            for cmd in () if task.repository is not None else task.env.setup_cmds:
                _check(["bash", "-c", cmd], f"setup command {cmd!r}", cwd=workdir, env=host_env)
            if info["project"]:
                offline = self._cargo_env(tc, home, target, online=False)
                packages = self._packages(tc, workdir, offline)
                if packages is not None and not packages[1]:
                    info["prebuild_skipped"] = "no dependency outside the task's own packages"
                else:
                    sandbox_workdir = SANDBOX_WORKSPACE if rel == "." else f"{SANDBOX_WORKSPACE}/{rel}"
                    for assigns, args in prebuild_commands(task):
                        info["prebuild"].append(self._prebuild(tc, dest, ws, sandbox_workdir, assigns, args))
                    if packages is None:
                        # Without the package list the pre-built target cannot be cleaned: drop it.
                        shutil.rmtree(target, ignore_errors=True)
                    else:
                        info["cleaned"] = self._clean_local_packages(
                            tc, workdir, offline, target, packages[0]
                        )
                for lock in target.glob("*/.cargo-lock"):
                    lock.unlink()
        (dest / INFO_FILE).write_text(json.dumps(info, indent=1, sort_keys=True) + "\n")

    def _task_tree(self, task: Task, ws: Path, info: dict[str, Any]) -> bool:
        """Write the task's own tree to ``ws``: its files, or its repository's checkout."""
        if task.repository is None:
            materialise(task.workspace, ws)
            return True

        try:
            checkout = RepoCache(self.cache_dir, self.repos).checkout(task.repository, row_id=task.id)
        except EnvError as e:
            # Without the checkout the environment is the toolchain alone, and a note says so.
            info["note"] = "; ".join(
                n for n in (info.get("note"), f"dependencies not fetched (no checkout at setup: {e})") if n
            )
            return False
        # A real copy: the sandboxed pre-build takes ownership of the tree, which must not reach the
        # cached checkout through hard links.
        shutil.copytree(checkout.path, ws, symlinks=True)
        return True

    def activate(self, root: Path, task: Task) -> Prepared:
        try:
            info = json.loads((root / INFO_FILE).read_text(encoding="utf-8"))
            sysroot = Path(info["sysroot"])
        except (OSError, ValueError, KeyError, TypeError) as e:
            raise EnvError(f"environment {root} is broken ({e}); run `patchbench env prune --all`") from None
        if not (sysroot / "bin").is_dir():
            raise EnvError(f"the Rust toolchain {sysroot} of environment {root} is gone; reinstall it")
        home = root / "cargo-home"
        ro: list[Path] = [root]
        if not _always_visible(sysroot):
            ro.append(sysroot)
        notes: list[str] = []
        if info.get("note"):
            notes.append(str(info["note"]))
        for step in info.get("prebuild", []):
            if not step.get("ok"):
                notes.append(
                    f"pre-build `{step.get('command')}` failed (exit {step.get('exit_code')}): "
                    "the dependencies it did not reach compile during the test run"
                )
        env = {
            **{k: v for k, v in CARGO_COMMON_ENV.items() if k != "RUSTC_BOOTSTRAP"},
            "CARGO_HOME": str(home),
            "RUSTC": str(info["rustc"]),
            "RUSTDOC": str(info["rustdoc"]),
        }
        cargo_bin = str(Path(info["cargo"]).parent)
        path = [
            str(sysroot / "bin"),
            *([cargo_bin] if cargo_bin != str(sysroot / "bin") else []),
            str(home / "bin"),
        ]
        prelude = ['export CARGO_TARGET_DIR="$PWD/target"']
        if (root / "target").is_dir():
            src = shlex.quote(str(root / "target") + "/.")
            prelude.append(
                'if [ ! -e "$CARGO_TARGET_DIR/.patchbench-seeded" ]; then '
                f'mkdir -p "$CARGO_TARGET_DIR" && cp -a {src} "$CARGO_TARGET_DIR/" '
                '&& chmod -R u+w "$CARGO_TARGET_DIR" && : > "$CARGO_TARGET_DIR/.patchbench-seeded"; fi'
            )
        return Prepared(
            key=root.name,
            root=root,
            ro_paths=tuple(ro),
            path=tuple(path),
            env=env,
            notes=tuple(notes),
            prelude=tuple(prelude),
            # A repository task's env_setup_cmds (``cargo fetch``...) fill CARGO_HOME online.
            setup_env={"CARGO_NET_OFFLINE": "false"},
        )

    # -- setup steps ----------------------------------------------------------------------------

    @staticmethod
    def _cargo_env(tc: Toolchain, home: Path, target: Path, *, online: bool) -> dict[str, str]:
        """The host environment for cargo's setup steps (fetch, metadata, clean), build settings cleared.

        Registry and proxy settings (``CARGO_REGISTRIES_*``, ``CARGO_HTTP_*``) are kept for the fetch.
        """
        env = {
            k: v
            for k, v in os.environ.items()
            if k not in _HOST_BUILD_VARS
            and not k.startswith(("CARGO_BUILD_", "CARGO_PROFILE_", "CARGO_TARGET_"))
        }
        env.update(CARGO_COMMON_ENV)
        if online:
            env.pop("CARGO_NET_OFFLINE")
        env |= {
            "CARGO_HOME": str(home),
            "CARGO_TARGET_DIR": str(target),
            "RUSTC": str(tc.rustc),
            "RUSTDOC": str(tc.rustdoc),
            "PATH": f"{tc.bin}:{home / 'bin'}:{env.get('PATH', '/usr/local/bin:/usr/bin:/bin')}",
        }
        return env

    @staticmethod
    def _is_project(tc: Toolchain, workdir: Path, env: dict[str, str]) -> bool:
        r = subprocess.run(
            [str(tc.cargo), "locate-project", "--offline"],
            cwd=workdir,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        return r.returncode == 0

    def _prebuild(
        self,
        tc: Toolchain,
        dest: Path,
        ws: Path,
        sandbox_workdir: str,
        assigns: dict[str, str],
        args: list[str],
    ) -> dict[str, Any]:
        """Run one ``cargo test --no-run`` in the sandbox (the caller's, else bwrap), ``dest`` bound writable
        at its own path. The crates' build scripts run here: never outside a sandbox, so a missing one is
        an :class:`EnvError` (infrastructure), not a run on the host.

        Raises:
            EnvError: no sandbox can be had, or it failed.
        """
        env = {
            **CARGO_COMMON_ENV,
            "CARGO_HOME": str(dest / "cargo-home"),
            "CARGO_TARGET_DIR": str(dest / "target"),
            "RUSTC": str(tc.rustc),
            "RUSTDOC": str(tc.rustdoc),
            **assigns,
        }
        variables = env_variables(
            None, path_before=[str(tc.bin), str(dest / "cargo-home" / "bin")], extra=env
        )
        argv = [str(tc.cargo), *args]
        step: dict[str, Any] = {"command": shlex.join(["cargo", *args])}
        t0 = time.monotonic()
        binds = [Bind(ws, SANDBOX_WORKSPACE, writable=True), Bind(dest, str(dest), writable=True)]
        if not _always_visible(tc.sysroot):
            binds.append(Bind(tc.sysroot, str(tc.sysroot)))
        try:
            # The pre-build binds the tree at its sandbox path: it needs a backend with mounts.
            sb = self.sandbox if self.sandbox is not None and self.sandbox.mounts else get_sandbox("bwrap")
            res = exec_in_env(
                sb,
                argv,
                env=None,
                cwd=sandbox_workdir,
                binds=binds,
                variables=variables,
                limits=Limits(timeout_s=SETUP_TIMEOUT_S),
            )
        except SandboxError as e:
            raise EnvError(f"pre-build `{step['command']}`: {e}") from e
        code, err = res.exit_code, res.text("stderr")
        step["sandboxed"] = True
        step["exit_code"] = code
        step["ok"] = code == 0
        step["seconds"] = round(time.monotonic() - t0, 2)
        if code != 0:
            step["stderr_tail"] = err[-2000:]
            log.info("pre-build %s failed (exit %s): %s", step["command"], code, " ".join(err.split())[-300:])
        # The sandbox handed the tree to its throw-away uid; give it back.
        _chown_to_self(dest)
        return step

    @staticmethod
    def _packages(tc: Toolchain, workdir: Path, env: dict[str, str]) -> tuple[list[str], int] | None:
        """The task's own package names (path sources) and the number of other packages; None when
        ``cargo metadata`` fails."""
        try:
            meta = json.loads(
                _run_text(
                    [str(tc.cargo), "metadata", "--format-version", "1", "--offline"],
                    "cargo metadata",
                    cwd=str(workdir),
                    env=env,
                )
            )
        except (EnvError, ValueError) as e:
            log.warning("cargo metadata failed: %s", e)
            return None
        packages = [p for p in meta.get("packages", []) if isinstance(p, dict)]
        local = sorted({str(p.get("name")) for p in packages if p.get("source") is None})
        return local, sum(1 for p in packages if p.get("source") is not None)

    @staticmethod
    def _clean_local_packages(
        tc: Toolchain, workdir: Path, env: dict[str, str], target: Path, names: list[str]
    ) -> list[str]:
        """Remove the artifacts of the task's own packages from ``target``, in every profile built."""
        if not target.is_dir() or not names:
            return names
        profiles = [d.name for d in target.iterdir() if (d / ".fingerprint").is_dir()]
        for profile_dir in profiles:
            profile = {"debug": "dev", "release": "release"}.get(profile_dir, profile_dir)
            argv = [str(tc.cargo), "clean", "--offline", "--profile", profile]
            for name in names:
                argv += ["-p", name]
            _check(argv, f"cargo clean ({profile})", cwd=workdir, env=env)
        return names


def _always_visible(path: Path) -> bool:
    """Whether the sandbox shows ``path`` anyway (``/usr``, ``/opt``...): no bind needed."""
    return (str(path).rstrip("/") + "/").startswith(_BASE_DIRS)


def _chown_to_self(root: Path) -> None:
    """Take back a tree a sandbox handed to its throw-away uid (a no-op when not root)."""
    if os.geteuid() != 0:
        return
    for dirpath, dirnames, filenames in os.walk(root):
        os.chown(dirpath, 0, 0, follow_symlinks=False)
        for name in dirnames + filenames:
            os.chown(os.path.join(dirpath, name), 0, 0, follow_symlinks=False)


def _check(argv: list[str], what: str, *, cwd: Path, env: dict[str, str]) -> None:
    try:
        r = subprocess.run(
            argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=SETUP_TIMEOUT_S, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as e:
        raise EnvError(f"{what}: {e}") from e
    if r.returncode != 0:
        tail = " ".join((r.stderr or r.stdout).split())[-500:]
        raise EnvError(f"{what} failed (exit {r.returncode}): {tail}")
