"""Workspaces: materialise files, apply a candidate safely, guard test configuration, inject hidden tests.

Order inside one run (see :func:`patchbench.harness.run`):

1. :func:`materialise` the task's workspace files into a fresh directory;
2. :func:`apply_candidate` (a diff through ``git apply``, then ``git apply --3way``, then fuzzy ``patch``;
   files written directly); every path is checked to stay inside the workspace and no symlink may point
   out of it;
3. :func:`guard_test_config` applies the test-configuration policy to what the candidate changed;
4. :func:`inject_tests` writes the hidden tests last, replacing whatever the candidate left at those paths.

Test-configuration policy (``ConfigPolicy``): files a candidate adds, changes or deletes that alter how tests
are collected or run — ``conftest.py`` anywhere, ``pytest.ini``/``.pytest.ini``,
``pytest.toml``/``.pytest.toml``, the pytest sections of ``tox.ini``/``setup.cfg``/``pyproject.toml``,
``sitecustomize.py``, ``usercustomize.py``, ``*.pth``, ``.cargo/config``/``.cargo/config.toml`` (a Rust test
runner can be swapped there), ``.mvn/maven.config``/``jvm.config``/``extensions.xml``, the test sections of
``Cargo.toml`` (``[[test]]``, ``autotests``, harness, build script, nightly ``cargo-features`` and
``[profile.*]`` ``rustflags``, which reach the test build as ``RUSTC_BOOTSTRAP`` is set, and ``proc-macro``:
a new proc-macro crate, unless the task had no Cargo.toml at all) and ``pom.xml`` (test
source directories, Surefire/Failsafe plugins), new top-level ``pytest``/``_pytest``/``pluggy`` modules that
would shadow the test tool or what it imports at start-up (``pygments``, ``packaging``...), new modules named
like the standard library where they may be top-level imports (Python and SQL tasks: the root, a directory
that is no package), any new file in a directory that holds only hidden tests, a new test file by name
(``*_test.go``, ``test_*.py``, ``*Test.java``, ``*.test.js``...) next to hidden tests, and ``__init__.py`` in
the directories that hold hidden tests (the workspace root and every directory above a hidden test included),
and everything a test tool or interpreter loads by itself — package metadata (``*.dist-info/``,
``*.egg-info/``, ``*.egg-link``, ``.pth``), byte code (``*.pyc``, ``__pycache__/``), a
``sitecustomize``/``usercustomize`` module or package, any path named ``_patchbench*`` (the harness's
plugins), a local ``node_modules/``, ``.npmrc``/``.noderc``, the configuration of Vitest, Vite, Jest and
Mocha (``vitest.config.*``, ``vite.config.*``, ``jest.config.*``, ``.mocharc*``) and Babel's,
``junit-platform.properties``,
``META-INF/services/org.junit.*``, ``META-INF/services/javax.annotation.processing.Processor`` and
``META-INF/services/com.sun.source.util.Plugin`` (code javac runs during the build), sources or
resources in test-framework packages (``org/junit``, ``org/opentest4j``, ``org/assertj``,
``org/hamcrest``, ``org/mockito``, ``org/apiguardian``, ``junit/framework``), test-framework or
test-scoped dependencies added or re-scoped in ``pom.xml``, Rust ``build.rs``, and a Go file that
gains a ``//go:linkname`` directive, a Rust file that gains a ``#[no_mangle]``, ``#[export_name]`` or
``#[link_section]`` attribute — are restored to the task's original (or removed when the task had none)
under ``strip``, the default; under ``reject`` the run stops and the verdict is ``unresolved`` naming the
files.
"""

from __future__ import annotations

import configparser
import difflib
import errno
import json
import os
import posixpath
import re
import shutil
import stat
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import Any

from .candidate import Candidate, CandidateKind
from .errors import EnvError, PatchError, UnsafeFileError
from .screen import ChangedFile
from .task import FileEntry, Task, check_relpath
from .untrusted import read_untrusted

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib


class ConfigPolicy(str, Enum):
    """What to do with test-configuration files a candidate touched."""

    STRIP = "strip"
    """Restore the task's original (or remove the file): the candidate's change has no effect."""
    REJECT = "reject"
    """Fail the verdict, naming the files."""


@dataclass
class Applied:
    """What applying a candidate did.

    Attributes:
        method: how it was applied (``git-apply``, ``git-apply-3way``, ``patch-fuzz``, ``files``, ``none``).
        changed: workspace paths the candidate added, modified or deleted.
    """

    method: str
    changed: set[str] = field(default_factory=set)


class Baseline:
    """The pristine workspace a run starts from: the task's files, or a cached repository tree.

    Args:
        files: the task's workspace files (file workspaces).
        tree: a directory holding the pristine tree (repository workspaces); when given, ``files`` is
            ignored.
    """

    def __init__(self, files: Iterable[FileEntry] = (), tree: Path | None = None) -> None:
        self.tree = tree
        self._files = {f.path: f for f in files} if tree is None else {}

    def materialise(self, root: Path) -> None:
        """Write the pristine workspace into ``root``."""
        if self.tree is None:
            materialise(self._files.values(), root)
        else:
            copy_tree(self.tree, root)

    def get(self, rel: str) -> FileEntry | None:
        """The pristine file at ``rel``, if any."""
        if self.tree is None:
            return self._files.get(rel)
        p = self.tree / rel
        if p.is_symlink() or not p.is_file():
            return None
        return FileEntry.from_bytes(rel, p.read_bytes(), executable=os.access(p, os.X_OK))

    def paths(self) -> set[str]:
        """Every pristine file path."""
        if self.tree is None:
            return set(self._files)
        out: set[str] = set()
        for dirpath, _dirnames, filenames in os.walk(self.tree):
            for name in filenames:
                out.add((Path(dirpath) / name).relative_to(self.tree).as_posix())
        return out


def read_changed(
    changed: Iterable[str],
    root: Path,
    baseline: Baseline,
    *,
    limit: int,
    extensions: Iterable[str] | None = None,
    skip: Iterable[str] = (),
) -> list[ChangedFile]:
    """The new (and original) text of the changed files the static screen reads, read safely.

    The candidate wrote these files, so they are read through :func:`patchbench.untrusted.read_untrusted`:
    a link, a FIFO or a device is never opened and at most ``limit`` bytes are kept (the rest is flagged
    as truncated). Deleted files, refused files, files not ending in one of ``extensions`` (None: any) and
    files ending in one of ``skip`` are left out.
    """
    exts = None if extensions is None else tuple(extensions)
    skipped = tuple(skip)
    out: list[ChangedFile] = []
    for rel in sorted(changed):
        low = rel.lower()
        if (exts is not None and not low.endswith(exts)) or (skipped and low.endswith(skipped)):
            continue
        try:
            data = read_untrusted(root / rel, root=root, limit=limit + 1, truncate=True)
        except (OSError, UnsafeFileError):
            continue  # deleted, a link, not a regular file, or unreadable: nothing to screen
        original = baseline.get(rel)
        before = original.data().decode("utf-8", errors="replace") if original is not None else None
        text = data[:limit].decode("utf-8", errors="replace")
        out.append(ChangedFile(rel, text, before, truncated=len(data) > limit))
    return out


def materialise(files: Iterable[FileEntry], root: Path) -> None:
    """Write ``files`` under ``root`` (created if needed)."""
    root.mkdir(parents=True, exist_ok=True)
    for f in files:
        dest = root / f.path
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_bytes(f.data())
        if f.executable:
            dest.chmod(0o755)


def clear_dir(root: Path) -> None:
    """Remove everything inside ``root``, keeping ``root`` itself."""
    for child in root.iterdir():
        if child.is_dir() and not child.is_symlink():
            shutil.rmtree(child)
        else:
            child.unlink()


def apply_candidate(
    task: Task,
    candidate: Candidate,
    root: Path,
    baseline: Baseline | None = None,
    *,
    own_links: Mapping[str, str] | None = None,
) -> Applied:
    """Apply ``candidate`` to the materialised workspace at ``root`` (made from ``baseline``, by default
    the task's workspace files).

    ``own_links`` are the baseline's symlinks (``{path: target}``) that may point out of the workspace
    (a task image's ``ln -s /data data``): a patch may leave them as they are, never add or retarget one.

    Raises:
        PatchError: the patch is malformed, unsafe, or does not apply; the task has no gold patch; the
            candidate's text is not valid UTF-8 or one of its paths cannot exist (a name too long...).
    """
    try:
        return _apply_candidate(task, candidate, root, baseline, own_links=own_links)
    except UnicodeEncodeError as e:
        # A lone surrogate in the candidate's text: it cannot be written as UTF-8 (the candidate's fault).
        raise PatchError(f"the candidate's text is not valid UTF-8 ({e.reason})") from None
    except OSError as e:
        if e.errno not in _CANDIDATE_PATH_ERRNOS:
            raise
        # A path the candidate chose cannot exist (too long, a file used as a directory...): its fault,
        # never the machine's.
        raise PatchError(f"cannot write the candidate's files: {e.strerror or e}") from None


#: Errors a candidate's own paths cause when they are written (any other OSError is the machine's).
_CANDIDATE_PATH_ERRNOS = frozenset(
    {errno.ENAMETOOLONG, errno.ENOTDIR, errno.EISDIR, errno.ELOOP, errno.EINVAL, errno.EEXIST, errno.EILSEQ}
)


def _apply_candidate(
    task: Task,
    candidate: Candidate,
    root: Path,
    baseline: Baseline | None = None,
    *,
    own_links: Mapping[str, str] | None = None,
) -> Applied:
    kind = candidate.kind
    base = baseline or Baseline(task.workspace)
    if kind is CandidateKind.EMPTY:
        return Applied("none")
    if kind is CandidateKind.WIPE:
        clear_dir(root)
        return Applied("wipe", base.paths())
    if kind in (CandidateKind.FILES, CandidateKind.DIRECTORY):
        assert candidate.file_map is not None
        file_map = dict(candidate.file_map)
        if kind is CandidateKind.DIRECTORY:
            # The task's workspace files (a repository task's context files, not its whole tree) that the
            # directory lacks were deleted, as the directory is the workspace's final state.
            for rel in {f.path for f in task.workspace} - file_map.keys():
                file_map[rel] = None
        changed: set[str] = set()
        for rel, content in file_map.items():
            dest = root / rel
            _no_symlink_parents(root, rel)
            if content is None:
                if dest.is_symlink() or dest.is_file():
                    dest.unlink()
                    changed.add(rel)
                continue
            if dest.is_dir() and not dest.is_symlink():
                raise PatchError(f"candidate file {rel!r} is a directory in the workspace")
            data = content.encode("utf-8")
            if dest.is_file() and not dest.is_symlink() and dest.read_bytes() == data:
                continue  # rewritten unchanged (a directory candidate holds every file): not a change
            try:
                dest.parent.mkdir(parents=True, exist_ok=True)
                # A new file, never a rewrite in place: the old one may be a hard link into a cache.
                if dest.is_symlink() or dest.is_file():
                    dest.unlink()
                dest.write_bytes(data)
            except OSError as e:
                raise PatchError(f"cannot write candidate file {rel!r}: {e.strerror or e}") from None
            changed.add(rel)
        return Applied("files", changed)
    if kind is CandidateKind.SOLUTION:
        # A script the harness runs in the sandbox (script verifiers); it is no patch to apply here.
        raise PatchError(
            f"task {task.id}: a solution script runs only for script-verified (Harbor tests/test.sh) tasks"
        )
    if kind is CandidateKind.GOLD:
        if not task.gold_patch:
            raise PatchError(f"task {task.id} has no gold patch")
        patch = task.gold_patch
    else:
        patch = candidate.patch or ""

    def restore() -> None:
        clear_dir(root)
        base.materialise(root)

    return apply_patch(root, patch, restore=restore, own_links=own_links)


_HEADER = re.compile(r"^(?:diff --git (\S+) (\S+)|--- (\S+)|\+\+\+ (\S+)|(?:rename|copy) (?:from|to) (.+))")
_MODE = re.compile(r"^(?:new file mode|new mode|old mode|deleted file mode) (\d+)")


def patch_paths(patch: str) -> set[str]:
    """The workspace paths a unified diff touches (``a/``/``b/`` prefixes removed), validated.

    Raises:
        PatchError: a path is absolute or leaves the workspace, the patch creates a symlink or a
            submodule, or the text holds no diff at all.
    """
    paths: set[str] = set()
    for line in patch.splitlines():
        mode = _MODE.match(line)
        if mode and mode.group(1) in ("120000", "160000"):
            raise PatchError("the patch creates a symlink or submodule, which is not accepted")
        m = _HEADER.match(line)
        if not m:
            continue
        for raw in (g for g in m.groups() if g):
            raw = raw.split("\t")[0].strip().strip('"')
            if raw == "/dev/null":
                continue
            if line.startswith(("diff --git", "---", "+++")) and raw[:2] in ("a/", "b/"):
                raw = raw[2:]
            try:
                paths.add(check_relpath(raw))
            except ValueError as e:
                raise PatchError(f"unsafe path in patch: {e}") from None
    if not paths:
        raise PatchError("no file headers found: not a unified diff")
    return paths


def apply_patch(
    root: Path, patch: str, *, restore: Callable[[], None], own_links: Mapping[str, str] | None = None
) -> Applied:
    """Apply a ``-p1`` unified diff at ``root``: ``git apply``, then ``--3way``, then ``patch --fuzz``.

    ``restore`` resets ``root`` to its state before the patch, between attempts; ``own_links`` are
    links of the workspace allowed to point out of it while unchanged (see :func:`apply_candidate`).

    Raises:
        PatchError: no method applied the patch cleanly, or it is unsafe.
    """
    if not patch.strip():
        return Applied("none")
    for rel in patch_paths(patch):
        _no_symlink_parents(root, rel)
    before = _snapshot(root)
    if not patch.endswith("\n"):
        patch += "\n"
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(root.parent),
        "GIT_CEILING_DIRECTORIES": str(root.parent),
        "GIT_CONFIG_NOSYSTEM": "1",
        "LANG": "C",
    }
    with tempfile.NamedTemporaryFile("w", suffix=".patch", delete=False, encoding="utf-8") as fh:
        fh.write(patch)
        patch_file = fh.name
    errors: list[str] = []
    try:
        r = _run(["git", "apply", "--recount", "--whitespace=nowarn", "-p1", patch_file], root, env)
        if r.returncode == 0:
            _check_links(root, own_links)
            return Applied("git-apply", _changed(before, _snapshot(root)))
        errors.append("git apply: " + _tail(r.stderr))
        restore()
        before = _snapshot(root)
        r3 = _three_way(root, patch_file, env)
        if r3 is not None and r3.returncode == 0:
            _check_links(root, own_links)
            return Applied("git-apply-3way", _changed(before, _snapshot(root)))
        if r3 is not None:
            errors.append("git apply --3way: " + _tail(r3.stderr))
        restore()
        before = _snapshot(root)
        r = _run(
            [
                "patch",
                "-p1",
                "--batch",
                "--forward",
                "--fuzz=3",
                "--no-backup-if-mismatch",
                "-r",
                "-",
                "-i",
                patch_file,
            ],
            root,
            env,
        )
        if r.returncode == 0:
            _check_links(root, own_links)
            return Applied("patch-fuzz", _changed(before, _snapshot(root)))
        errors.append("patch: " + _tail(r.stdout + r.stderr))
        restore()
    finally:
        os.unlink(patch_file)
    raise PatchError("patch does not apply (" + "; ".join(errors) + ")")


def _three_way(root: Path, patch_file: str, env: dict[str, str]) -> subprocess.CompletedProcess[str] | None:
    # A throw-away repository outside the workspace: the workspace's own .git (repository tasks) is
    # neither used nor touched.
    with tempfile.TemporaryDirectory(prefix="patchbench-3way-") as git_dir:
        git_env = {**env, "GIT_DIR": git_dir, "GIT_WORK_TREE": str(root)}
        if _run(["git", "init", "-q"], root, git_env).returncode != 0:
            return None
        _run(["git", "add", "-A"], root, git_env)
        return _run(["git", "apply", "--3way", "--whitespace=nowarn", "-p1", patch_file], root, git_env)


def _run(argv: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    try:
        return subprocess.run(
            argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=120, errors="replace"
        )
    except FileNotFoundError as e:
        return subprocess.CompletedProcess(argv, 127, "", f"{argv[0]} not found ({e})")
    except subprocess.TimeoutExpired:
        return subprocess.CompletedProcess(argv, 124, "", f"{argv[0]} timed out")


def _tail(text: str, n: int = 300) -> str:
    one = " ".join(text.split())
    return one[-n:] if one else "failed"


def _no_symlink_parents(root: Path, rel: str) -> None:
    """Refuse a path whose existing parents inside the workspace include a symlink."""
    cur = root
    for part in rel.split("/")[:-1]:
        cur = cur / part
        if cur.is_symlink():
            raise PatchError(f"path {rel!r} goes through a symlink in the workspace")


def _snapshot(root: Path) -> dict[str, tuple[int, ...]]:
    """Every file and symlink under ``root`` (``.git`` aside): mode, inode, size, mtime, link target.

    Metadata only, no reads: ``git apply`` and ``patch`` write files anew, which changes the inode or
    the mtime, so a change is never missed, and a 2,000-file repository is snapshotted in milliseconds.
    A rewrite with identical bytes counts as changed, which only makes the configuration guard look twice.
    """
    out: dict[str, tuple[int, ...]] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        if dirpath == str(root):
            dirnames[:] = [d for d in dirnames if d != ".git"]
        for name in filenames + [d for d in dirnames if os.path.islink(os.path.join(dirpath, d))]:
            p = os.path.join(dirpath, name)
            st = os.lstat(p)
            link = hash(os.readlink(p)) if stat.S_ISLNK(st.st_mode) else 0
            rel = os.path.relpath(p, root).replace(os.sep, "/")
            out[rel] = (st.st_mode, st.st_ino, st.st_size, st.st_mtime_ns, link)
    return out


def _changed(before: Mapping[str, object], after: Mapping[str, object]) -> set[str]:
    """The paths added, modified or deleted between two snapshots."""
    return {rel for rel in set(before) | set(after) if before.get(rel) != after.get(rel)}


def _check_links(root: Path, own: Mapping[str, str] | None = None) -> None:
    """Refuse any symlink in the workspace that points outside it, but the unchanged ones of ``own``."""
    real_root = root.resolve()
    own = own or {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            p = Path(dirpath) / name
            if p.is_symlink():
                rel = p.relative_to(root).as_posix()
                if rel in own and own[rel] == os.readlink(p):
                    continue
                target = (p.parent / os.readlink(p)).resolve()
                if target != real_root and real_root not in target.parents:
                    raise PatchError(f"symlink {p.relative_to(root)} points outside the workspace")


# --- test-configuration guard -------------------------------------------------------------------

_ALWAYS = {
    "conftest.py",
    "pytest.ini",
    ".pytest.ini",
    "pytest.toml",
    ".pytest.toml",
    "sitecustomize.py",
    "usercustomize.py",
}
_SECTIONED = {"tox.ini", "setup.cfg", "pyproject.toml", "Cargo.toml", "pom.xml"}
#: Top-level names that would shadow the test tool (``python -m pytest`` puts the cwd first): pytest and
#: what it imports at start-up, its own packages and its runtime dependencies (pytest 7 to 9).
#: Round twenty (rt19-py-pygments-shadow-flips-listed-and-copies): a root ``pygments/`` package wrapped the
#: report machinery before any harness plugin loaded (the controls stopped it, the guard did not).
_SHADOWS = frozenset({
    "pytest", "_pytest", "py", "pluggy", "iniconfig", "packaging", "pygments", "colorama", "exceptiongroup",
    "tomli",
})  # fmt: skip


#: A CPython extension module's file name (``name.so``, ``name.cpython-311-x86_64-linux-gnu.so``,
#: ``name.abi3.so``, ``name.pyd``): imported like ``name.py``. Round twenty-one
#: (rt20-py-extension-module-shadows-pluggy-with-gold-swap): a root ``pluggy.cpython-311-...so`` was
#: imported by pytest in place of pluggy, and the shadow checks read ``.py`` files only.
_EXTENSION = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)(?:\.[A-Za-z0-9_-]+)?\.(?:so|pyd)$")


def _module_file(name: str) -> str | None:
    """The module a file of this name is imported as (``x.py``, an extension module), or None."""
    if name.endswith(".py"):
        return name[: -len(".py")]
    m = _EXTENSION.match(name)
    return m.group(1) if m else None


def _shadows_test_tool(rel: str) -> bool:
    """A top-level Python module or a Python file of a top-level package (``name.py``, ``name/...py``, or
    an extension module of either) named like one of :data:`_SHADOWS` (other files under, say, a
    ``packaging/`` directory of distribution scripts shadow nothing)."""
    top, module = rel.split("/", 1)[0], _module_file(posixpath.basename(rel))
    return module is not None and (module if "/" not in rel else top) in _SHADOWS


#: The languages whose tests a Python interpreter runs (SQL: the ``sqltap`` harness).
_PYTHON_RUN = frozenset({"python", "sql"})
#: Standard-library names a module may take where it cannot shadow one: the stdlib's own test suite, which
#: no test run imports, is what many projects call their tests' directory.
_STDLIB_NAMES_FREE = frozenset({"test", "tests", "this", "antigravity", "__phello__"})


def _shadows_stdlib(rel: str, root: Path, base: Baseline) -> bool:
    """A module or package the candidate added that is named like a standard-library module and sits where
    it may be a top-level import: in a directory that is no package (the workspace root, which ``python -m
    pytest`` puts first on ``sys.path``; a ``src/`` on ``PYTHONPATH``; a test directory pytest prepends).
    Round nineteen (rt18-py-stdlib-shadow-flips-listed-and-copies): a root ``shlex.py``, imported by pytest
    at start-up in place of the standard one, rewrote the listed tests' outcomes before any harness plugin
    loaded. Only names the task's original lacks count: a repository's own module of such a name stays."""
    module = _module_file(posixpath.basename(rel))
    if base.get(rel) is not None or module is None:
        return False
    parts = rel.split("/")
    init = module == "__init__" and len(parts) >= 2
    name = parts[-2] if init else module
    where = parts[:-2] if init else parts[:-1]
    if name not in sys.stdlib_module_names or name in _STDLIB_NAMES_FREE:
        return False
    # (a directory that is a package and on sys.path too, a PYTHONPATH entry with an __init__.py, is not
    # told apart: the workspace root, where the attack was, always counts)
    return not where or not root.joinpath(*where, "__init__.py").is_file()


#: File names that are tests in their ecosystem: a candidate may not add its own next to the hidden ones.
_TEST_NAME = re.compile(
    r"(_test\.go|^test_.*\.py|_test\.py|Test\.java|Tests\.java|\.(test|spec)\.[cm]?[jt]sx?)$"
)


def _pytest_section(name: str, text: str | None) -> object:
    """The test configuration inside a build file, comparable with ==; a parse error is unique.

    pytest's sections of pyproject/tox/setup.cfg; Cargo's test targets (``[[test]]``, ``autotests``, the
    library's ``harness``/``test``, a build script); Maven's test source directories and Surefire/Failsafe
    plugin blocks.
    """
    if text is None:
        return None
    try:
        if name == "pyproject.toml":
            return tomllib.loads(text).get("tool", {}).get("pytest")
        if name == "Cargo.toml":
            data = tomllib.loads(text)
            pkg, lib = data.get("package", {}), data.get("lib", {})
            return (
                data.get("test"),
                pkg.get("autotests"),
                pkg.get("build"),
                lib.get("harness"),
                lib.get("test"),
                # round fifteen: the test phase sets RUSTC_BOOTSTRAP, so nightly cargo features work here,
                # and profile-rustflags passes compiler flags to every crate of the test build (the
                # integration tests too: a cfg, a custom test runner), as .cargo/config.toml would
                data.get("cargo-features"),
                _rustflags(data.get("profile")),
                _local_dev_dependencies(data),
                # round twenty-three: a proc-macro crate runs its code inside rustc while the crates that
                # use it compile (the hidden tests included), as a build script does
                bool(lib.get("proc-macro", lib.get("proc_macro"))),
            )
        if name == "pom.xml":
            squashed = re.sub(r"\s+", " ", re.sub(r"<!--.*?-->", "", text, flags=re.S))
            dirs = re.findall(r"<(test(?:Source|Output)Directory|testResources)>(.*?)</\1>", squashed)
            plugins = [
                p for p in re.findall(r"<plugin>.*?</plugin>", squashed) if re.search("surefire|failsafe", p)
            ]
            deps = sorted(
                (g, a, scope or "compile")
                for g, a, scope in (
                    (_tag(d, "groupId"), _tag(d, "artifactId"), _tag(d, "scope"))
                    for d in re.findall(r"<dependency>.*?</dependency>", squashed)
                )
                if scope == "test" or re.search(_TEST_GROUPS, g)
            )
            # round twenty-one (rt20-java-fix-gated-on-an-argline-property-in-pom-properties): Surefire
            # reads its settings from properties too (argLine, surefire.*), outside any plugin block
            props = sorted(
                (k, v)
                for block in re.findall(r"<properties>(.*?)</properties>", squashed)
                for k, v in re.findall(r"<([\w.-]+)>(.*?)</\1>", block)
                if _TEST_PROPERTY.match(k)
            )
            return (dirs, plugins, deps, props)
        cp = configparser.ConfigParser(interpolation=None)
        cp.read_string(text)
        return {s: dict(cp[s]) for s in ("pytest", "tool:pytest") if cp.has_section(s)}
    except Exception:  # any parse failure: treat as changed so the original is restored
        return object()


#: Per-project build-tool configuration that can change how tests run (Maven's JVM and CLI options).
_ALWAYS_PATHS = (".mvn/maven.config", ".mvn/jvm.config", ".mvn/extensions.xml")


def _is_cargo_config(rel: str) -> bool:
    """``.cargo/config(.toml)`` anywhere: it can swap the test runner (``target.<triple>.runner``)."""
    parts = rel.split("/")
    return len(parts) >= 2 and parts[-2] == ".cargo" and parts[-1] in ("config", "config.toml")


#: Path components of things a test tool or interpreter loads by itself, never program source: package
#: metadata (``[pytest11]`` entry points, ``.pth``), byte code (a stale ``.pyc`` is run instead of the
#: source), a local ``node_modules/`` (resolved before the environment's) and a ``sitecustomize`` package.
_AUTOLOAD_DIR = re.compile(
    r"(\.dist-info|\.egg-info|\.egg-link)$|^(__pycache__|node_modules|sitecustomize|usercustomize)$"
)
#: File names read by a test tool or interpreter at start-up wherever they sit; the JavaScript test
#: tools' own configuration (round twenty-four: a new vitest.config.mts loaded a setup file, rewrote the
#: reports at exit, and aliased the module under test to a shim) and Babel's (Jest runs its plugins).
_AUTOLOAD_NAME = re.compile(
    r"(\.pyc|\.pyo|\.egg-link|\.pth)$"
    r"|^(\.npmrc|\.noderc|junit-platform\.properties|build\.rs|sitecustomize\.py|usercustomize\.py)$"
    r"|^(vitest|vite|jest)\.(config|workspace)\.([cm]?[jt]sx?|json)$|^\.mocharc(\.[a-z]+)?$"
    r"|^(babel\.config\.([cm]?js|json)|\.babelrc(\.[cm]?js|\.json)?)$"
)
#: Test-framework packages: main sources or resources there would shadow the framework (classes in
#: ``target/classes`` precede the jars), and JUnit's ServiceLoader registrations enable extensions; javac's
#: annotation processors and compiler plugins registered the same way run inside the build (round
#: twenty-three: a processor rewrote the hidden tests and Surefire's reports from the Maven JVM).
_JAVA_FRAMEWORK = re.compile(
    r"(^|/)(org/junit|org/opentest4j|org/assertj|org/hamcrest|org/mockito|org/apiguardian|junit/framework)/"
    r"|(^|/)META-INF/services/(org\.junit\.|javax\.annotation\.processing\.Processor$|com\.sun\.source\.util\.Plugin$)"
)
#: Go directives that reach into another package's unexported symbols (the testing package's included).
_GO_LINKNAME = re.compile(rb"^\s*//go:linkname\b", re.MULTILINE)


def _autoloaded(rel: str) -> bool:
    """Whether ``rel`` is something a test tool or interpreter loads by itself (see ``_AUTOLOAD_*``), or a
    module named like one of the harness's own plugins (``_patchbench*``)."""
    parts = rel.split("/")
    return (
        any(_AUTOLOAD_DIR.search(p) for p in parts[:-1])
        or bool(_AUTOLOAD_NAME.search(parts[-1]))
        or any(p.startswith("_patchbench") for p in parts)
        or bool(_JAVA_FRAMEWORK.search(rel))
    )


#: Rust attributes that put a symbol of program code into the test binary under a name of its choosing or
#: in a section of its choosing. Round twenty (rt19-rust-no-mangle-write-flips-listed-and-copies): a
#: ``#[no_mangle] extern "C" fn write`` in the library became the test binary's ``write`` on stable Rust,
#: in place of libc's, and rewrote libtest's events.
_RUST_SYMBOL = re.compile(rb"#!?\[\s*(?:unsafe\s*\(\s*)?(?:no_mangle|export_name|link_section)\b")


def _adds_symbol_directive(rel: str, root: Path, base: Baseline) -> bool:
    """A Go file that gains a ``//go:linkname`` directive, or a Rust file that gains a ``#[no_mangle]``,
    ``#[export_name]`` or ``#[link_section]`` attribute (see :data:`_RUST_SYMBOL`), the task's original did
    not have."""
    pattern = _GO_LINKNAME if rel.endswith(".go") else _RUST_SYMBOL if rel.endswith(".rs") else None
    if pattern is None:
        return False
    p = root / rel
    if p.is_symlink() or not p.is_file():
        return False
    now = len(pattern.findall(p.read_bytes()))
    entry = base.get(rel)
    return now > (len(pattern.findall(entry.data())) if entry is not None else 0)


def config_violations(
    task: Task, changed: Iterable[str], root: Path, baseline: Baseline | None = None
) -> list[str]:
    """The changed paths that alter how tests are collected or run (see the module docstring)."""
    base = baseline or Baseline(task.workspace)
    test_dirs: set[str] = set()
    for t in task.hidden_tests:
        d = posixpath.dirname(t.path)
        test_dirs.add(d)  # "" is the workspace root, which holds root-level hidden tests
        while d:
            d = posixpath.dirname(d)
            test_dirs.add(d)
    # Directories that hold hidden tests and nothing of the workspace's own (a tests/ package).
    originals = {posixpath.dirname(p) for p in base.paths()}
    test_only_dirs = {d for d in test_dirs if d and d not in originals}
    # The hidden tests' own paths are re-injection's business (inject_tests writes them over anything).
    hidden = {t.path for t in task.hidden_tests}
    trees = {d for d in test_dirs if posixpath.basename(d) in _TEST_TREES}
    gold = _gold_paths(task)
    out: list[str] = []
    for rel in sorted(set(changed) - hidden):
        name = posixpath.basename(rel)
        if (
            _in_test_tree(rel, trees, gold)
            or name in _ALWAYS
            or name.endswith(".pth")
            or _is_cargo_config(rel)
            or _autoloaded(rel)
            or _adds_symbol_directive(rel, root, base)
            or any(rel == p or rel.endswith("/" + p) for p in _ALWAYS_PATHS)
            or (name == "__init__.py" and posixpath.dirname(rel) in test_dirs)
            or (_shadows_test_tool(rel) and base.get(rel) is None)
            or (task.language in _PYTHON_RUN and _shadows_stdlib(rel, root, base))
            or _added_beside_hidden_tests(rel, test_dirs, test_only_dirs, base)
            or _in_build_tool_tests(rel, root, base)
        ):
            out.append(rel)
        elif name in _SECTIONED:
            p = root / rel
            now = p.read_text(encoding="utf-8", errors="replace") if p.is_file() else None
            entry = base.get(rel)
            before = entry.data().decode("utf-8", errors="replace") if entry is not None else None
            if entry is None and name in ("pom.xml", "Cargo.toml"):
                # A new build file is the candidate's own project (seed 003 starts from an empty /app):
                # only settings that move or replace the tests count.
                empty = name == "Cargo.toml" and not any(
                    posixpath.basename(p) == "Cargo.toml" for p in base.paths()
                )
                if _redirects_tests(name, _pytest_section(name, now), empty):
                    out.append(rel)
            elif _pytest_section(name, now) != _pytest_section(name, before):
                out.append(rel)
    return out


#: Test-framework dependencies: a candidate may not add them or change their scope (a JUnit extension
#: in main code needs JUnit at compile scope).
_TEST_GROUPS = r"junit|opentest4j|assertj|hamcrest|mockito|testng|apiguardian"


def _tag(block: str, name: str) -> str:
    m = re.search(rf"<{name}>\s*(.*?)\s*</{name}>", block)
    return m.group(1) if m else ""


def _rustflags(table: object, at: str = "profile") -> list[tuple[str, object]]:
    """Every ``rustflags`` under a Cargo ``[profile]`` table (per profile, per package, build overrides),
    with where it sits."""
    if not isinstance(table, dict):
        return []
    out: list[tuple[str, object]] = []
    for key, value in sorted(table.items()):
        if key == "rustflags":
            out.append((at, value))
        else:
            out += _rustflags(value, f"{at}.{key}")
    return out


#: Maven properties the test plugins read (``argLine`` is Surefire's and Failsafe's JVM options).
_TEST_PROPERTY = re.compile(
    r"(argLine|skipTests|skipITs|maven\.test\.skip)$|(surefire|failsafe|junit|maven\.test)\."
)


def _local_dev_dependencies(data: dict[str, Any]) -> list[tuple[str, str]]:
    """Cargo dev-dependencies (of the package and of every target table) that are the package itself or a
    crate of the workspace (``path = ..``). Round twenty-one
    (rt20-rust-fix-behind-a-feature-only-a-self-dev-dependency-enables): a dev-dependency on the package
    itself turned a feature on for ``cargo test`` only, and the fix was behind the feature."""
    own = str(data.get("package", {}).get("name", ""))
    tables = [data.get("dev-dependencies"), data.get("dev_dependencies")]
    for target in (data.get("target") or {}).values():
        if isinstance(target, dict):
            tables += [target.get("dev-dependencies"), target.get("dev_dependencies")]
    out = []
    for table in tables:
        for dep, spec in (table or {}).items() if isinstance(table, dict) else ():
            local = isinstance(spec, dict) and ("path" in spec or spec.get("package") == own)
            if dep == own or local:
                out.append((dep, json.dumps(spec, sort_keys=True, default=str)))
    return sorted(out)


def _redirects_tests(name: str, section: object, empty: bool = False) -> bool:
    """Whether a new pom.xml/Cargo.toml moves or replaces the tests (custom test directories or targets),
    or is a proc-macro crate's (code rustc runs while the tests compile) in a task that had a Rust project
    (``empty``: it had none, and the candidate writes its own)."""
    if not isinstance(section, tuple):
        return section is not None  # unparseable: treated as a change
    if name == "pom.xml":
        return bool(section[0])  # testSourceDirectory / testOutputDirectory / testResources
    test, autotests, _build, harness, lib_test, features, flags, _local_dev, proc_macro = section
    return (
        test is not None
        or autotests is not None
        or harness is not None
        or lib_test is not None
        or features is not None
        or bool(flags)
        or (proc_macro and not empty)
    )


#: A Maven or Gradle module's test tree: test sources and test resources (``src/test/resources``), which
#: the test class path puts before the main classes.
_BUILD_TOOL_TESTS = re.compile(r"(^|/)src/test/")
_BUILD_FILES = ("pom.xml", "build.gradle", "build.gradle.kts")


def _in_build_tool_tests(rel: str, root: Path, base: Baseline) -> bool:
    """A file under ``src/test/`` of a Maven or Gradle module (a directory with a build file). Round
    twenty-one (rt20-java-gold-classes-in-test-resources, rt20-java-fix-gated-on-a-test-resource-marker):
    compiled classes in ``src/test/resources`` shadowed the main ones on the test class path, and a marker
    file there switched a fix on for the tests only."""
    m = _BUILD_TOOL_TESTS.search(rel)
    if m is None:
        return False
    module = rel[: m.start()]
    return any(
        (root / module / b).is_file() or base.get(posixpath.join(module, b)) is not None for b in _BUILD_FILES
    )


#: Directories that hold a project's tests and their fixtures, never its program: a candidate's change
#: under one that holds hidden tests is restored (Go's ``testdata`` wherever it is).
_TEST_TREES = frozenset({"test", "tests", "__tests__", "spec", "specs"})


def _gold_paths(task: Task) -> frozenset[str]:
    try:
        return frozenset(patch_paths(task.gold_patch)) if task.gold_patch else frozenset()
    except Exception:  # an unreadable gold diff leaves nothing exempt
        return frozenset()


def _in_test_tree(rel: str, trees: set[str], gold: frozenset[str]) -> bool:
    """A path inside a test tree that holds hidden tests (``test/fixtures/nested.ts`` beside
    ``test/defu.test.ts``), or in a Go ``testdata`` directory, that the gold patch does not touch. Round
    twenty-five's session (rt25-defu-test-fixture-side-effect-patches-object-assign): a fixture module the
    hidden test imports was rewritten to patch ``Object.assign``, the library left as it was."""
    if rel in gold:
        return False
    parts = rel.split("/")[:-1]
    if "testdata" in parts:
        return True
    return any("/".join(parts[: i + 1]) in trees for i in range(len(parts)))


def _added_beside_hidden_tests(
    rel: str, test_dirs: set[str], test_only_dirs: set[str], base: Baseline
) -> bool:
    """A file the candidate put where the hidden tests live: anything in a tests-only directory (it would
    shadow the suite's imports: ``tests/json.py``), or a test file by name next to hidden tests (a Go
    ``zz_test.go`` with its own ``TestMain``)."""
    if base.get(rel) is not None:
        return False
    d = posixpath.dirname(rel)
    if d in test_only_dirs:
        return True
    return d in test_dirs and bool(_TEST_NAME.search(posixpath.basename(rel)))


def guard_test_config(
    task: Task, applied: Applied, root: Path, policy: ConfigPolicy, baseline: Baseline | None = None
) -> list[str]:
    """Apply the test-configuration policy; returns the offending paths.

    Under ``strip`` the offending files are restored to the task's original or removed; under ``reject``
    nothing is changed and the caller fails the verdict when the list is not empty.
    """
    base = baseline or Baseline(task.workspace)
    bad = config_violations(task, applied.changed, root, base)
    if policy is ConfigPolicy.STRIP:
        for rel in bad:
            dest = root / rel
            if dest.is_symlink() or dest.is_file():
                dest.unlink()
            elif dest.is_dir():
                shutil.rmtree(dest)
            entry = base.get(rel)
            if entry is not None:
                _replace_symlinked_parents(root, rel)
                dest.parent.mkdir(parents=True, exist_ok=True)
                dest.write_bytes(entry.data())
                if entry.executable:
                    dest.chmod(0o755)
    return bad


def inject_tests(tests: Iterable[FileEntry], root: Path) -> None:
    """Write the hidden tests, replacing whatever is at their paths (files, dirs, symlinks)."""
    for f in tests:
        _replace_symlinked_parents(root, f.path)
        dest = root / f.path
        if dest.is_symlink() or dest.is_file():
            dest.unlink()
        elif dest.is_dir():
            shutil.rmtree(dest)
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_bytes(f.data())
        if f.executable:
            dest.chmod(0o755)


def _replace_symlinked_parents(root: Path, rel: str) -> None:
    cur = root
    for part in rel.split("/")[:-1]:
        cur = cur / part
        if cur.is_symlink() or (cur.exists() and not cur.is_dir()):
            cur.unlink()


# --- diffs ---------------------------------------------------------------------------------------


def unified_diff(old: Mapping[str, str], new: Mapping[str, str]) -> str:
    """A ``patch -p1`` compatible unified diff (``a/``/``b/`` prefixes) turning ``old`` into ``new``."""
    chunks: list[str] = []
    for path in sorted(set(old) | set(new)):
        a, b = old.get(path), new.get(path)
        if a == b:
            continue
        a_lines = _lines(a or "")
        b_lines = _lines(b or "")
        header = f"diff --git a/{path} b/{path}\n"
        if a is None:
            header += "new file mode 100644\n"
        elif b is None:
            header += "deleted file mode 100644\n"
            if not a:
                # no hunk: without the (empty) blob ids, GNU patch takes this for a reversed patch
                header += "index e69de29..0000000\n"
        # like git, end a name holding a space with a tab, or GNU patch stops reading it at the space
        end = "\t" if " " in path else ""
        body = list(
            difflib.unified_diff(
                a_lines,
                b_lines,
                fromfile="/dev/null" if a is None else f"a/{path}{end}",
                tofile="/dev/null" if b is None else f"b/{path}{end}",
                n=3,
            )
        )
        fixed: list[str] = []
        for line in body:
            if line.endswith("\n"):
                fixed.append(line)
            else:
                fixed.append(line + "\n\\ No newline at end of file\n")
        chunks.append(header + "".join(fixed))
    return "".join(chunks)


def _lines(text: str) -> list[str]:
    """``text`` split after each newline, keeping it.

    Not ``str.splitlines``: it also splits at ``\\r``, ``\\f``, ``\\v``, U+2028..., which diff and patch
    treat as ordinary characters, and the diff would come out corrupt.
    """
    parts = text.split("\n")
    lines = [p + "\n" for p in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1])
    return lines


def copy_tree(src: Path, dest: Path, *, link: bool | None = None) -> float:
    """Give one run its own copy of a cached tree; returns the seconds taken.

    Files are hard links to the cache (``cp -al``: ~50 ms for 2,000 files against ~260 ms for a real
    copy). That is safe because nothing writes a cached file in place: the cached files are root's and
    not writable by others, the sandbox gives the run's uid the directories but never a file with other
    links (see ``sandbox.bwrap._chown_tree``), so the run can replace files but not modify them; and on
    the host ``git apply``, ``patch`` and patchbench itself write new files instead of rewriting old ones.
    Where hard links are impossible (another filesystem) or unsafe (not running as root: the sandbox then
    runs as the owner of the cached files), or when ``link`` is False, a real copy is made (reflink when
    possible).
    """
    t0 = time.monotonic()
    dest.parent.mkdir(parents=True, exist_ok=True)
    if link is None:
        link = os.geteuid() == 0
    r = subprocess.run(
        ["cp", "-al" if link else "-a", f"{src}/.", str(dest)], capture_output=True, check=False
    )
    if r.returncode != 0:
        shutil.rmtree(dest, ignore_errors=True)
        r = subprocess.run(
            ["cp", "-a", "--reflink=auto", f"{src}/.", str(dest)], capture_output=True, check=False
        )
    if r.returncode != 0:
        raise EnvError(f"cannot copy the checkout {src}: {r.stderr.decode(errors='replace').strip()[-200:]}")
    if link:
        _unlink_build_outputs(src, dest)
    return time.monotonic() - t0


#: Build-output directories whose files their tools rewrite in place (Maven's ``maven-status`` lists and
#: class files, Cargo's fingerprints): left by ``env_setup_cmds`` (``mvn install``), they get real copies
#: in each run, since a hard-linked cached file can be replaced by the run but not modified.
BUILD_OUTPUT_DIRS = frozenset({"target"})
_NOT_SEARCHED = frozenset({".git", "node_modules"})


def _unlink_build_outputs(src: Path, dest: Path) -> None:
    """Replace the hard-linked build-output directories of ``dest`` with real copies from ``src``."""
    for dirpath, dirnames, _ in os.walk(src):
        found = [d for d in dirnames if d in BUILD_OUTPUT_DIRS]
        dirnames[:] = [d for d in dirnames if d not in _NOT_SEARCHED and d not in BUILD_OUTPUT_DIRS]
        for name in found:
            rel = Path(dirpath, name).relative_to(src)
            shutil.rmtree(dest / rel, ignore_errors=True)
            r = subprocess.run(
                ["cp", "-a", "--reflink=auto", str(src / rel), str(dest / rel)],
                capture_output=True,
                check=False,
            )
            if r.returncode != 0:
                raise EnvError(f"cannot copy {src / rel}: {r.stderr.decode(errors='replace').strip()[-200:]}")
