"""Go environments: the task's modules downloaded once, and a build cache warmed on the buggy workspace.

Setup phase (network, outside the sandbox, as root; trusted commands only):

1. the task's workspace and hidden tests (never a candidate's files) are written to a scratch directory;
2. ``go mod download`` runs in every module of it (each directory with a ``go.mod``, skipping ``vendor/``
   and ``testdata/``) into ``<env>/gomodcache``, through the host's ``GOPROXY`` (proxy.golang.org by
   default); a vendored module (``vendor/modules.txt``) downloads nothing;
3. the task's ``setup_cmds`` run there, with ``GOPATH=<env>/gopath`` (whose ``bin`` is on PATH later);
4. the build cache ``<env>/gocache`` is warmed by compiling every test package the test command will
   compile: ``go test -exec=/bin/true -count=1 <the task's go test arguments>`` (``./...`` when the command
   is not a plain ``go test``), offline and with exactly the variables of the test phase, so the action
   ids match. ``-exec=/bin/true`` links the test binaries but never runs them: no workspace code runs as
   root. A warm-up that fails (the buggy workspace may not compile against its hidden tests) is not an
   error; its log is kept in ``<env>/warm.log`` and a note says so.

Test phase (offline, in the sandbox): ``GOPROXY=off``, ``GOSUMDB=off``, ``GOTOOLCHAIN=local``,
``GOTELEMETRY=off``, ``GOENV=off`` (no host or workspace ``go env -w`` settings), ``GOFLAGS=-mod=readonly``
(``-mod=vendor`` for a vendored module) ``-buildvcs=false``, ``GOMODCACHE`` read-only in the environment
(Go only reads a complete module cache). ``GOCACHE`` must be writable and the environment is not, so a
prelude copies the warmed cache to ``/tmp/go-build`` (a tmpfs) before each command and stamps its
``trim.txt`` so that go does not spend the run trimming it.

Measured on this machine (2 shared cores), for the built-in Go task (a standard-library-only module):
a cold build cache costs 12 s (idle machine) to 22 s (busy) per ``go test ./...``, mostly compiling the
standard library; the warmed cache is about 60 MB in about 1000 files; the prelude's ``cp -r`` into the
sandbox's tmpfs takes 0.1-0.16 s, and the whole warm test command 0.35-0.5 s (0.35-1.1 s of ``test_s``
through the harness). A cold ``prepare`` (download nothing, warm) takes 15-30 s, a warm one under 1 ms.
Alternatives considered: a symlink farm (``cp -rs``, 0.01 s) would leave go's in-place writes to existing
entries (mtime refreshes, rewritten index entries) aimed at read-only files through the links;
``GOCACHEPROG`` (a cache program reading the read-only cache and
writing to /tmp) saves the copy but needs a helper binary built and kept per Go version. The copy costs
about 2 ms per MB, so it stays cheap until a task's dependencies make the cache hundreds of MB.

Without a ``go.mod`` (in the test working directory or above it, within the workspace; nor a
``go.work``), tests run in GOPATH mode (``GO111MODULE=off``): that is how such code was meant to be
built, nothing is written into the candidate's workspace, and the packages are named ``_/workspace/...``,
which the runner's ids accept. Imports between the workspace's own packages then only work as relative
imports; a synthetic ``go.mod`` was rejected because its module path would have to be guessed.

The key holds ``go version``, GOROOT, the architecture, the hash of every ``go.mod``/``go.sum``/
``go.work``/``go.work.sum`` of the task (path and content), whether the test module is vendored or has no
``go.mod``, the test-phase ``GOFLAGS``, the ``go test`` arguments the build cache is warmed with (a
``-race`` or ``-tags`` build makes other objects: warmed without them, every run would compile the
standard library again) and the setup commands. It does not hold the workspace's sources:
the warmed cache is content-addressed by go itself, so a cache warmed on another task with the same
modules costs a few compilations, never a wrong result. Repository tasks (``Task.repository``) carry no
files here; their key holds the repository and commit, and no module is downloaded (see the notes).
"""

from __future__ import annotations

import functools
import hashlib
import os
import platform
import posixpath
import re
import shlex
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

from ..errors import EnvError
from ..runners._commands import program_words
from ..task import FileEntry, Task
from ..workspace import materialise
from ._base import Env, Prepared
from ._exec import BASE_PATH

#: Bumped when the layout of a built environment changes.
LAYOUT = 1

#: Where go is looked for when it is not on PATH (the official tarball's location).
FALLBACK_GO = ("/usr/local/go/bin/go",)

#: The writable build cache of a test run, seeded from the environment by the prelude.
RUN_GOCACHE = "/tmp/go-build"


_MANIFESTS = ("go.mod", "go.sum", "go.work", "go.work.sum")
_SKIP_DIRS = ("vendor", "testdata")
_GO_DIRECTIVE = re.compile(r"^\s*go\s+(\d+(?:\.\d+){0,2})\s*(?://.*)?$", re.MULTILINE)
_GO_VERSION = re.compile(r"\bgo(\d+(?:\.\d+){0,2})")
_IMAGE_VERSION = re.compile(r"golang[:\-](\d+\.\d+)")
_BASE_DIRS = ("/usr/", "/etc/", "/opt/")


def find_go() -> Path:
    """The ``go`` binary: on PATH, else in /usr/local/go, resolved.

    Raises:
        EnvError: there is none; the message says what to install.
    """
    found = shutil.which("go")
    candidates = [found] if found else []
    candidates += [p for p in FALLBACK_GO if os.path.isfile(p) and os.access(p, os.X_OK)]
    if not candidates:
        raise EnvError(
            "go is not installed: install Go 1.21 or newer from https://go.dev/dl/ into /usr/local/go "
            "(or apt-get install golang-go) and put its bin directory on PATH"
        )
    return Path(os.path.realpath(candidates[0]))


@functools.lru_cache(maxsize=8)
def _go_facts(go: str, mtime: float) -> tuple[str, str]:
    """(``go version`` output, GOROOT) of one go binary; ``mtime`` keys the cache."""
    env = {"PATH": f"{os.path.dirname(go)}:{BASE_PATH}", "GOENV": "off", "HOME": tempfile.gettempdir()}
    try:
        v = subprocess.run([go, "version"], capture_output=True, text=True, env=env, timeout=60, check=False)
        r = subprocess.run(
            [go, "env", "GOROOT"], capture_output=True, text=True, env=env, timeout=60, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as e:
        raise EnvError(f"{go} version failed: {e}") from e
    if v.returncode != 0 or r.returncode != 0:
        raise EnvError(f"{go} version failed: {(v.stderr or r.stderr).strip()[-300:]}")
    return v.stdout.strip(), r.stdout.strip()


def go_facts(go: Path) -> tuple[str, str]:
    """(``go version`` output, GOROOT) of ``go``."""
    return _go_facts(str(go), go.stat().st_mtime)


def _version_tuple(text: str) -> tuple[int, ...]:
    return tuple(int(p) for p in text.split("."))


def _task_files(task: Task) -> dict[str, FileEntry]:
    """The task's own files by path (hidden tests win over the workspace), never a candidate's."""
    files = {f.path: f for f in task.workspace}
    files.update({f.path: f for f in task.hidden_tests})
    return files


def _skipped(path: str) -> bool:
    return any(part in _SKIP_DIRS for part in path.split("/")[:-1])


def manifests(task: Task) -> dict[str, FileEntry]:
    """Every ``go.mod``/``go.sum``/``go.work``/``go.work.sum`` of the task, outside vendor/ and testdata/."""
    return {
        p: f
        for p, f in sorted(_task_files(task).items())
        if posixpath.basename(p) in _MANIFESTS and not _skipped(p)
    }


def _workdir(task: Task) -> str:
    w = posixpath.normpath(task.test.workdir or ".")
    return "" if w == "." else w


def module_root(task: Task) -> str | None:
    """The workspace directory of the test command's module or workspace (``""`` for the root), or None.

    The nearest ``go.mod`` or ``go.work`` in the working directory or above it, within the workspace.
    """
    files = _task_files(task)
    d = _workdir(task)
    while True:
        if any((posixpath.join(d, n) if d else n) in files for n in ("go.mod", "go.work")):
            return d
        if not d:
            return None
        d = posixpath.dirname(d)


def _vendored(task: Task, root: str | None) -> bool:
    if root is None:
        return False
    path = posixpath.join(root, "vendor/modules.txt") if root else "vendor/modules.txt"
    return path in _task_files(task)


def required_go(task: Task) -> str | None:
    """The ``go`` directive of the test module's ``go.mod``, if any."""
    root = module_root(task)
    if root is None:
        return None
    entry = _task_files(task).get(posixpath.join(root, "go.mod") if root else "go.mod")
    if entry is None:
        return None
    m = _GO_DIRECTIVE.search(entry.data().decode("utf-8", errors="replace"))
    return m.group(1) if m else None


def goflags(task: Task) -> str:
    """The test phase's ``GOFLAGS``."""
    if task.repository is not None and not manifests(task):
        # go.mod is in the repository: go's own default (-mod=readonly, or vendor/ when present) applies.
        return "-buildvcs=false"
    root = module_root(task)
    if root is None:
        return "-buildvcs=false"
    return f"-mod={'vendor' if _vendored(task, root) else 'readonly'} -buildvcs=false"


def test_phase_env(task: Task, root: Path) -> dict[str, str]:
    """The Go variables of a test run (also used, with the network, to download and warm)."""
    env = {
        "GOENV": "off",
        "GOFLAGS": goflags(task),
        "GOPATH": str(root / "gopath"),
        "GOMODCACHE": str(root / "gomodcache"),
        "GOCACHE": RUN_GOCACHE,
        "GOPROXY": "off",
        "GOSUMDB": "off",
        "GOTOOLCHAIN": "local",
        "GOTELEMETRY": "off",
    }
    if module_root(task) is None and not (task.repository is not None and not manifests(task)):
        env["GO111MODULE"] = "off"
    return env


def _repository_only(task: Task) -> bool:
    """A repository task whose go.mod is in its checkout only: the setup runs there, not in ``build``."""
    return task.repository is not None and not manifests(task)


def warm_args(task: Task) -> list[str]:
    """The ``go test`` arguments the build cache is warmed with: those of the task's first plain
    ``go test`` argv (after wrappers such as ``env`` or ``timeout``), else ``./...``."""
    for command in task.test.commands:
        words = program_words(list(command.argv or ()))
        if len(words) >= 2 and words[0] == "go" and words[1] == "test":
            return [a for a in words[2:] if a != "-json"]
    return ["./..."]


def _sha(entry: FileEntry) -> str:
    return hashlib.sha256(entry.data()).hexdigest()


class GoEnv(Env):
    """A module cache and a warmed build cache per toolchain and set of module manifests; read-only."""

    name = "go"
    languages = ("go",)

    def describe(self, task: Task) -> dict[str, Any]:
        go = find_go()
        version, goroot = go_facts(go)
        root = module_root(task)
        desc: dict[str, Any] = {
            "layout": LAYOUT,
            "go": version,
            "goroot": goroot,
            "arch": platform.machine(),
            "manifests": {p: _sha(f) for p, f in manifests(task).items()},
            "module_root": root,
            "vendored": _vendored(task, root),
            "goflags": goflags(task),
            # what the cache is warmed with: a test command's build flags (``-race``, ``-tags``...) make
            # other objects, and a cache warmed without them compiles the standard library in every run
            "warm": warm_args(task),
            "setup_cmds": list(task.env.setup_cmds),
        }
        if task.repository is not None and not desc["manifests"]:
            desc["repository"] = [task.repository.repo, task.repository.base_commit]
        return desc

    def build(self, task: Task, dest: Path) -> None:
        go = find_go()
        version, goroot = go_facts(go)
        _check_go_directive(task, version)
        env = {
            "PATH": ":".join([str(Path(goroot) / "bin"), str(dest / "gopath" / "bin"), BASE_PATH]),
            **test_phase_env(task, dest),
            "GOCACHE": str(dest / "gocache"),
        }
        for name in ("GOPROXY", "GOSUMDB", "GONOSUMDB", "GOPRIVATE", "GONOPROXY", "GOINSECURE"):
            # The host's module settings for downloading; go's defaults otherwise.
            env.pop(name, None)
            if os.environ.get(name):
                env[name] = os.environ[name]
        for d in ("gopath", "gomodcache", "gocache"):
            (dest / d).mkdir(parents=True, exist_ok=True)
        scratch = Path(tempfile.mkdtemp(prefix="patchbench-go-"))
        try:
            env["HOME"] = str(scratch / "home")
            env["TMPDIR"] = str(scratch / "tmp")
            (scratch / "home").mkdir()
            (scratch / "tmp").mkdir()
            ws = scratch / "workspace"
            materialise(task.workspace, ws)
            materialise(task.hidden_tests, ws)
            root = module_root(task)
            if root is not None:
                for path in manifests(task):
                    if posixpath.basename(path) != "go.mod":
                        continue
                    mod_dir = ws / posixpath.dirname(path)
                    if _vendored(task, posixpath.dirname(path)):
                        continue
                    _check(
                        [str(go), "mod", "download"],
                        f"go mod download in {path}",
                        cwd=mod_dir,
                        env={**env, "GOFLAGS": ""},
                    )
            if _repository_only(task):
                # Its env_setup_cmds run in the checkout (patchbench.repos.prepare_tree, ``setup_env``):
                # they download into gomodcache and warm gocache there.
                return
            for cmd in task.env.setup_cmds:
                _check(["bash", "-c", cmd], f"setup command {cmd!r}", cwd=ws, env=env)
            offline = {**env, "GOPROXY": "off", "GOSUMDB": "off"}
            for name in ("GONOSUMDB", "GOPRIVATE", "GONOPROXY", "GOINSECURE"):
                offline.pop(name, None)
            workdir = ws / _workdir(task)
            argv = [str(go), "test", "-exec=/bin/true", "-count=1", *warm_args(task)]
            try:
                r = subprocess.run(
                    argv, cwd=workdir, env=offline, capture_output=True, text=True, timeout=3600, check=False
                )
                log_text = f"$ {' '.join(argv)}\nexit {r.returncode}\n{r.stdout}{r.stderr}"
            except (OSError, subprocess.TimeoutExpired) as e:
                log_text = f"$ {' '.join(argv)}\nfailed: {e}\n"
            (dest / "warm.log").write_text(log_text, encoding="utf-8")
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
        # The build cache's own bookkeeping that each run rewrites anyway.
        for junk in ("trim.txt",):
            p = dest / "gocache" / junk
            if p.exists():
                p.unlink()

    def activate(self, root: Path, task: Task) -> Prepared:
        go = find_go()
        version, goroot = go_facts(go)
        ro: list[Path] = [root]
        if not (goroot + "/").startswith(_BASE_DIRS):
            ro.append(Path(goroot))
        notes: list[str] = []
        wanted = _wanted_version(task)
        have = _GO_VERSION.search(version)
        if wanted and have and _version_tuple(have.group(1))[:2] < _version_tuple(wanted):
            # A newer toolchain is fine: go.mod's go line sets the language version it compiles for.
            notes.append(f"Go {wanted} was asked for ({task.env.image}); using the older {version}")
        warm_log = root / "warm.log"
        if warm_log.exists():
            text = warm_log.read_text(encoding="utf-8", errors="replace")
            if "\nexit 0\n" not in text:
                first = next(
                    (ln for ln in text.splitlines()[2:] if ln.strip() and not ln.startswith("#")), "no output"
                )
                notes.append(f"the build cache was warmed only in part ({warm_log}): {first[:200]}")
        if _repository_only(task) and not task.env.setup_cmds:
            notes.append(
                "repository task without env_setup_cmds: no module was downloaded (add `go mod download`)"
            )
        cache = root / "gocache"
        prelude = (
            f"[ -d {RUN_GOCACHE} ] || cp -r --no-preserve=mode,ownership {_q(cache)} {RUN_GOCACHE}"
            f" 2>/dev/null || mkdir -p {RUN_GOCACHE}",
            f"date +%s > {RUN_GOCACHE}/trim.txt 2>/dev/null || true",
        )
        setup_env: dict[str, str] = {}
        if _repository_only(task):
            # env_setup_cmds (``go mod download``, ``go build ./...``) run online, into the environment's
            # module cache, and warm its build cache, which the prelude copies for each run.
            setup_env = {
                "GOPROXY": os.environ.get("GOPROXY") or "https://proxy.golang.org,direct",
                "GOSUMDB": os.environ.get("GOSUMDB") or "sum.golang.org",
                "GOCACHE": str(cache),
            }
        # Warm the build cache on the checkout, as ``build`` does for file tasks: test binaries are linked,
        # never run (no repository code runs as root); a failure is not the setup's.
        warm = " ".join(
            shlex.quote(a) for a in ["go", "test", "-exec=/bin/true", "-count=1", *warm_args(task)]
        )
        setup_after = (f"{warm} >/dev/null 2>&1 || true",) if setup_env else ()
        return Prepared(
            key=root.name,
            root=root,
            ro_paths=tuple(ro),
            path=(str(Path(goroot) / "bin"), str(root / "gopath" / "bin")),
            env=test_phase_env(task, root),
            notes=tuple(notes),
            prelude=prelude,
            setup_env=setup_env,
            setup_after=setup_after,
        )


def _q(path: Path) -> str:
    return shlex.quote(str(path))


def _wanted_version(task: Task) -> str | None:
    m = _IMAGE_VERSION.search(task.env.image or "")
    return m.group(1) if m else None


def _check_go_directive(task: Task, version: str) -> None:
    need = required_go(task)
    have = _GO_VERSION.search(version)
    if need is None or have is None:
        return
    if _version_tuple(need) > _version_tuple(have.group(1)):
        raise EnvError(
            f"task {task.id}: go.mod asks for go {need} but the installed toolchain is {version}: "
            f"install Go {need} or newer from https://go.dev/dl/"
        )


def _check(argv: list[str], what: str, *, cwd: Path, env: dict[str, str]) -> None:
    try:
        r = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=3600, check=False)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise EnvError(f"{what}: {e}") from e
    if r.returncode != 0:
        tail = " ".join((r.stderr or r.stdout).split())[-500:]
        raise EnvError(f"{what} failed (exit {r.returncode}): {tail}")
