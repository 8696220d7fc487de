"""The filesystem a task's Dockerfile builds, rebuilt natively: cached per task content, copied per run.

A Harbor task's tests read and write wherever its Dockerfile put things (``/workspace``, ``/solution``,
``/data``, ``/home/user/project``...), not only ``/app``. :func:`prepare_image` rebuilds that part of the
image once per task content (and environment) in the cache, and :meth:`Image.lay_out` gives each run its
own writable copy, as the sandbox binds that the verifier and the candidate see:

* the image tree ``<cache>/images/<key>/tree`` holds one directory per top-level name the image uses
  (``tree/workspace`` is ``/workspace``). The build, in Dockerfile order: ``WORKDIR`` directories and the
  workspace directory are created; ``COPY``/``ADD`` files are written at their destinations; ``RUN``
  instructions are replayed in the sandbox (offline, unprivileged, the prepared environment on PATH, every
  top-level directory of the tree bound writable at its place) with the steps the parser set aside
  (installs, which the cached setup phase serves; downloads; user management) replaced by no-ops;
* what lands in a system directory (``/usr``, ``/etc``... read-only host directories in the sandbox)
  cannot be laid out there: a file or ``ln -s`` into a ``bin`` directory is served from a directory on
  PATH instead (``ln -s /usr/bin/python3 /usr/bin/python`` gives ``python`` on PATH), a link that already
  exists on the host is satisfied, anything else is a gap;
* a top-level symbolic link of the image (``ln -s /workspace /app``) becomes a second bind of its target;
* the run copies the tree (real copies, not hard links: a verifier may append to a file the image holds)
  and binds each top-level directory writable at its place; the sandbox gives them to the run's uid.

``gaps`` names what the image would hold that the native build could not make (a ``RUN`` that failed, a
build-time download, a file in a system directory, an unresolved ``COPY``); ``notes`` names what is not
honoured but leaves the files alone (``USER``, ``chown``, installs the setup phase does not serve). The
harness reports both, and a reward below 1 from a task with gaps is an ``infra_error``: the missing files
may be why, so it is not the candidate's failure (nor is it ever a pass).
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import posixpath
import re
import shlex
import shutil
import stat
import subprocess
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from ..envs import Prepared, env_variables, exec_in_env
from ..errors import EnvError, SandboxError, UnsafeFileError
from ..formats._dockerfile import SYSTEM_ROOTS, Copy, ImageSpec, RunStep, layable, split_steps
from ..formats._dockerfile import parse as parse_dockerfile
from ..sandbox import Bind, Limits, Sandbox
from ..task import Task
from ..untrusted import read_untrusted, read_untrusted_text
from ..workspace import copy_tree

__all__ = ["IMAGE_BIN_DST", "IMAGE_VERSION", "Image", "LaidOut", "image_spec", "prepare_image"]

#: Bumped whenever the build below changes what a cached image holds.
IMAGE_VERSION = "2"
#: Where the image's ``bin`` links and files (those that belong in system directories) appear.
IMAGE_BIN_DST = "/.patchbench-image-bin"
_REPLAY_DST = "/.patchbench-replay"
#: An absolute path in a shell command: its first component names a top-level directory of the image.
_ABSOLUTE = re.compile(r"(?<![\w.$/~-])/([A-Za-z0-9_][A-Za-z0-9_.-]*)")
_TAIL = 300


@dataclass(frozen=True)
class LaidOut:
    """One run's copy of the image.

    Attributes:
        root: the copied tree (``root/workspace`` is ``/workspace``).
        binds: the top-level directories (and aliases), writable, plus the ``bin`` directory read-only.
        path: directories to put on PATH, in order, after the environment's.
    """

    root: Path
    binds: tuple[Bind, ...]
    path: tuple[str, ...]


@dataclass(frozen=True)
class Image:
    """A cached native rebuild of a task's image (see the module docstring).

    Attributes:
        key: the content hash naming it in the cache.
        tree: the cached tree (read it, never write it).
        roots: the top-level directory names laid out.
        aliases: ``{top-level name: absolute target}`` for top-level symbolic links (bound twice).
        bin_links: ``{name: target}`` links served from the image's ``bin`` directory.
        workdir: the final ``WORKDIR`` (``/`` when none).
        env: the final ``ENV`` variables.
        gaps: what the native build could not make.
        notes: what is not honoured but leaves the files alone.
        cache_hit: whether it came from the cache.
        seconds: time spent building or finding it.
    """

    key: str
    tree: Path
    roots: tuple[str, ...]
    aliases: dict[str, str] = field(default_factory=dict)
    bin_links: dict[str, str] = field(default_factory=dict)
    workdir: str = "/"
    env: dict[str, str] = field(default_factory=dict)
    gaps: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    cache_hit: bool = False
    seconds: float = 0.0

    @property
    def bin_dir(self) -> Path:
        """Files of the image that belong in a system ``bin`` directory."""
        return self.tree.parent / "bin"

    def path_dirs(self) -> tuple[str, ...]:
        """Directories of the Dockerfile's ``ENV PATH`` that the image lays out (a venv it made...)."""
        dirs = []
        for d in self.env.get("PATH", "").split(":"):
            d = posixpath.normpath(d) if d.startswith("/") else ""
            top = d.strip("/").split("/", 1)[0]
            if d and layable(d) and top in self.roots and d not in dirs:
                dirs.append(d)
        return tuple(dirs)

    def links(self, app_dir: str) -> dict[str, str]:
        """The image's symlinks inside the workspace directory: ``{relative path: target}``.

        They come from the task's own Dockerfile (``ln -s /data /workspace/data``), so they may point out
        of the workspace; a candidate's patch may keep them, never add or retarget one.
        """
        root = self.tree / app_dir.strip("/")
        out: dict[str, str] = {}
        for dirpath, dirnames, filenames in os.walk(root):
            for name in dirnames + filenames:
                p = os.path.join(dirpath, name)
                if os.path.islink(p):
                    out[os.path.relpath(p, root).replace(os.sep, "/")] = os.readlink(p)
        return out

    def lay_out(self, dest: Path) -> LaidOut:
        """Copy the image into ``dest`` for one run; the binds expose it at its places.

        Raises:
            EnvError: the copy failed.
        """
        root = dest / "root"
        root.mkdir(parents=True)
        if any(self.tree.iterdir()):
            copy_tree(self.tree, root, link=False)
        binds: list[Bind] = []
        for top in self.roots:
            if top == "tmp":
                os.chmod(root / top, 0o1777)
            binds.append(Bind(root / top, "/" + top, writable=True))
        for top, target in self.aliases.items():
            binds.append(Bind(root / target.lstrip("/"), "/" + top, writable=True))
        bin_dir = dest / "image-bin"
        bin_dir.mkdir()
        if self.bin_dir.is_dir():
            for f in self.bin_dir.iterdir():
                shutil.copy2(f, bin_dir / f.name)
        for name, target in self.bin_links.items():
            with contextlib.suppress(FileExistsError):
                (bin_dir / name).symlink_to(target)
        binds.append(Bind(bin_dir, IMAGE_BIN_DST))
        return LaidOut(root=root, binds=tuple(binds), path=(*self.path_dirs(), IMAGE_BIN_DST))


def image_spec(task: Task) -> tuple[ImageSpec, str | None]:
    """The task's image as its ``environment/Dockerfile`` describes it, and that Dockerfile's text.

    A task without one (it came from another format) gets an empty image whose workspace holds the
    task's workspace files.
    """
    context: dict[str, tuple[bytes, bool]] = {}
    text: str | None = None
    for f in task.extra_files:
        if f.path == "environment/Dockerfile":
            text = f.data().decode("utf-8", errors="replace")
        elif f.path.startswith("environment/"):
            context[f.path[len("environment/") :]] = (f.data(), f.executable)
    if text is None:
        return ImageSpec(), None
    return parse_dockerfile(text, context), text


def prepare_image(
    task: Task,
    app_dir: str,
    sandbox: Sandbox,
    env: Prepared,
    cache_dir: Path,
    *,
    reserved: Iterable[str] = ("tests", "logs"),
) -> Image:
    """The cached native image of ``task``, built first on a miss.

    Args:
        task: the task (its ``environment/`` files and Dockerfile, in ``extra_files``).
        app_dir: the workspace directory (always laid out).
        sandbox: where ``RUN`` steps are replayed.
        env: the prepared environment (on PATH for the replay; part of the cache key).
        cache_dir: the cache root.
        reserved: top-level names the harness binds itself (the image's files there are gaps).

    Raises:
        EnvError: the image could not be built (the sandbox failed, or a file could not be written).
    """
    t0 = time.monotonic()
    spec, text = image_spec(task)
    reserved = tuple(reserved)
    workspace = None if text is not None else [(f.path, f.data(), f.executable) for f in task.workspace]
    desc = {
        "version": IMAGE_VERSION,
        "dockerfile": text,
        "files": sorted((p, hashlib.sha256(c).hexdigest(), x) for p, (c, x) in spec.files.items()),
        "workspace": sorted((p, hashlib.sha256(c).hexdigest(), x) for p, c, x in workspace or []),
        "app_dir": app_dir,
        "env": env.key,
        "reserved": reserved,
    }
    key = "image-" + hashlib.sha256(json.dumps(desc, sort_keys=True).encode()).hexdigest()[:20]
    base = cache_dir / "images" / key
    hit = (base / ".ready").exists()
    if not hit:
        with _lock(cache_dir / "locks" / f"{key}.lock"):
            hit = (base / ".ready").exists()
            if not hit:
                if base.exists():
                    shutil.rmtree(base)
                base.mkdir(parents=True)
                try:
                    manifest = _build(spec, workspace, app_dir, base, sandbox, env, reserved)
                    (base / "manifest.json").write_text(json.dumps(manifest, indent=1, sort_keys=True))
                    (base / ".ready").write_text(time.strftime("%Y-%m-%dT%H:%M:%S"))
                except BaseException:
                    shutil.rmtree(base, ignore_errors=True)
                    raise
    manifest = json.loads((base / "manifest.json").read_text())
    return Image(
        key=key,
        tree=base / "tree",
        roots=tuple(manifest["roots"]),
        aliases=dict(manifest["aliases"]),
        bin_links=dict(manifest["bin_links"]),
        workdir=spec.workdir,
        env=dict(spec.env),
        gaps=tuple(manifest["gaps"]),
        notes=tuple(manifest["notes"]),
        cache_hit=hit,
        seconds=time.monotonic() - t0,
    )


# ------------------------------------------------------------------------------------------- building


class _Builder:
    def __init__(self, base: Path, reserved: tuple[str, ...]) -> None:
        self.tree = base / "tree"
        self.bin = base / "bin"
        self.tree.mkdir()
        self.reserved = reserved
        self.named: set[str] = set()
        self.gaps: list[str] = []
        self.notes: list[str] = []

    def place(self, path: str) -> Path | None:
        """The tree path of an absolute image path, or None when it cannot be laid out."""
        norm = posixpath.normpath(path)
        top = norm.strip("/").split("/", 1)[0]
        if not layable(norm) or top in self.reserved or top.startswith(".patchbench"):
            return None
        self.named.add(top)
        return self.tree / norm.lstrip("/")

    def mkdir(self, path: str, why: str) -> None:
        dest = self.place(path)
        if dest is None:
            if not os.path.isdir(path):
                self.gaps.append(f"{why}: {path} is in a system directory, not laid out natively")
            return
        if not _mkdirs(self.tree, dest):
            self.gaps.append(f"{why}: {path} is below a link of the image, not laid out natively")

    def write(self, path: str, content: bytes, executable: bool, line: str) -> None:
        dest = self.place(path)
        if dest is None:
            parent = posixpath.dirname(posixpath.normpath(path))
            if posixpath.basename(parent) in ("bin", "sbin") and not path.endswith("/"):
                self.bin.mkdir(exist_ok=True)
                target = self.bin / posixpath.basename(path)
                target.write_bytes(content)
                target.chmod(0o755 if executable else 0o644)
                self.notes.append(f"{line}: {path} is served from PATH")
                return
            self.gaps.append(f"{line}: {path} is in a system directory, not laid out natively")
            return
        if not _mkdirs(self.tree, dest.parent):
            self.gaps.append(f"{line}: {path} is below a link of the image, not laid out natively")
            return
        if dest.is_symlink() or dest.is_file():
            dest.unlink()
        elif dest.is_dir():
            shutil.rmtree(dest)
        dest.write_bytes(content)
        dest.chmod(0o755 if executable else 0o644)


def _build(
    spec: ImageSpec,
    workspace: list[tuple[str, bytes, bool]] | None,
    app_dir: str,
    base: Path,
    sandbox: Sandbox,
    env: Prepared,
    reserved: tuple[str, ...],
) -> dict[str, object]:
    b = _Builder(base, reserved)
    b.gaps.extend(spec.gaps)
    b.gaps.extend(f"{line} (could not be resolved)" for line in spec.unresolved)
    b.notes.extend(spec.notes)
    for d in spec.dirs:
        b.mkdir(d, f"WORKDIR {d}")
    b.mkdir(app_dir, "the workspace")
    for rel, content, executable in workspace or []:
        b.write(posixpath.join(app_dir, rel), content, executable, "the workspace")
    # Top-level directories the RUN steps name: created up front, so an unprivileged replay can write
    # there (the sandbox's own root is not writable); the ones left empty and never named are dropped.
    scanned = {m.group(1) for run in spec.runs for m in _ABSOLUTE.finditer(run.script)}
    scanned = {t for t in scanned if t not in SYSTEM_ROOTS and t not in reserved and t != "tmp"}
    for top in sorted(scanned):
        (b.tree / top).mkdir(exist_ok=True)
    b.named.update(t for t in _made_dirs(spec.runs) if t in scanned)  # `mkdir -p /solution` keeps it
    pending: list[RunStep] = []
    for layer in spec.layers:
        if isinstance(layer, RunStep):
            pending.append(layer)
            continue
        _replay(pending, b, sandbox, env)
        pending = []
        assert isinstance(layer, Copy)
        for path, (content, executable) in layer.files.items():
            b.write(path, content, executable, layer.line)
    _replay(pending, b, sandbox, env)
    bin_links: dict[str, str] = {}
    for target, link in spec.system_links:
        if os.path.lexists(link):
            b.notes.append(f"ln -s {target} {link}: already on the host")
        elif posixpath.basename(posixpath.dirname(link)) in ("bin", "sbin"):
            bin_links[posixpath.basename(link)] = target
            b.notes.append(f"ln -s {target} {link}: served from PATH")
        else:
            b.gaps.append(f"ln -s {target} {link}: a link in a system directory, not laid out natively")
    missing = _missing_packages(spec.system_deps)
    if missing:
        b.notes.append(
            "apt-get install of packages this host does not have: "
            + ", ".join(missing)
            + " (the tests fail where they need one)"
        )
    roots: list[str] = []
    aliases: dict[str, str] = {}
    links = list(spec.top_links)
    for entry in sorted(b.tree.iterdir(), key=lambda p: p.name):
        top = entry.name
        if entry.is_symlink():
            links.append((os.readlink(entry), "/" + top))
            entry.unlink()
        elif entry.is_dir():
            if top in b.named or any(entry.iterdir()):
                roots.append(top)
            else:
                entry.rmdir()
        else:
            b.gaps.append(f"/{top}: a top-level file, not laid out natively")
            entry.unlink()
    for target, link in links:
        # A top-level link is laid out as a second bind of its target, which the image must hold.
        norm = posixpath.normpath(target)
        inside = b.tree / norm.lstrip("/")
        top = norm.strip("/").split("/", 1)[0]
        if target.startswith("/") and top in roots and inside.is_dir() and not inside.is_symlink():
            aliases[link.strip("/")] = norm
            continue
        b.gaps.append(f"ln -s {target} {link}: a top-level link to what the image does not hold")
    _chown_root(b.tree)
    return {
        "roots": roots,
        "aliases": aliases,
        "bin_links": bin_links,
        "gaps": b.gaps,
        "notes": b.notes,
    }


def _replay(runs: list[RunStep], b: _Builder, sandbox: Sandbox, env: Prepared) -> None:
    """Run ``runs`` in the sandbox on the tree; each failure becomes a gap."""
    if not runs:
        return
    status = b.tree.parent / "replay"
    status.mkdir(exist_ok=True)
    for old in status.iterdir():
        old.unlink()
    tops = [p.name for p in sorted(b.tree.iterdir()) if p.is_dir() and not p.is_symlink()]
    lines = []
    for i, run in enumerate(runs):
        exports = "".join(
            f"export {k}={shlex.quote(v)}; "
            for k, v in run.env.items()
            if k != "PATH" and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", k)
        )
        lines.append(
            f"( cd {shlex.quote(run.cwd)} 2>/dev/null || cd /; "
            f"{exports}exec /bin/sh -c {shlex.quote(run.script)} ) </dev/null "
            f">{_REPLAY_DST}/{i}.log 2>&1; echo $? >{_REPLAY_DST}/{i}.rc"
        )
    binds = [Bind(b.tree / top, "/" + top, writable=True) for top in tops]
    binds.append(Bind(status, _REPLAY_DST, writable=True))
    if b.bin.is_dir():
        binds.append(Bind(b.bin, IMAGE_BIN_DST))
    try:
        res = exec_in_env(
            sandbox,
            ["/bin/sh", "-c", "\n".join(lines)],
            env=env,
            cwd="/",
            binds=binds,
            variables=env_variables(env, path_after=[IMAGE_BIN_DST], extra={"HOME": "/tmp"}),
            limits=Limits(timeout_s=600),
            prelude=False,
        )
    except SandboxError as e:
        raise EnvError(f"replaying the Dockerfile's RUN steps: {e}") from e
    if res.timed_out:
        b.gaps.append("the Dockerfile's RUN steps did not finish in 600 s natively")
    for i, run in enumerate(runs):
        # Written inside the sandbox: read as untrusted (no links followed, capped).
        try:
            rc = int(read_untrusted_text(status / f"{i}.rc", root=status, limit=64).strip())
        except (OSError, ValueError, UnsafeFileError):
            b.gaps.append(f"{run.line}: did not run natively")
            continue
        if rc != 0:
            try:
                log = read_untrusted(status / f"{i}.log", root=status, limit=1 << 20, truncate=True).decode(
                    "utf-8", errors="replace"
                )
            except (OSError, UnsafeFileError):
                log = ""
            tail = " ".join(log.split())[-_TAIL:]
            b.gaps.append(f"{run.line}: failed natively (exit {rc}){': ' + tail if tail else ''}")
    shutil.rmtree(status, ignore_errors=True)


def _missing_packages(names: Iterable[str]) -> list[str]:
    """The Debian packages of ``names`` that are not installed here (none when dpkg is absent)."""
    wanted = [n for n in names if re.fullmatch(r"[a-z0-9][a-z0-9+.-]*", n)]
    dpkg = shutil.which("dpkg-query")
    if not wanted or dpkg is None:
        return []
    r = subprocess.run(
        [dpkg, "-W", "-f=${Package} ${db:Status-Status}\n", *wanted],
        capture_output=True,
        text=True,
        check=False,
    )
    installed = {line.split()[0] for line in r.stdout.splitlines() if line.endswith(" installed")}
    return [n for n in wanted if n not in installed]


def _made_dirs(runs: Iterable[RunStep]) -> set[str]:
    """Top-level names of the directories ``mkdir`` steps create (kept even when left empty)."""
    tops: set[str] = set()
    for run in runs:
        for step, _sep in split_steps(run.script):
            try:
                words = shlex.split(step)
            except ValueError:
                continue
            if words and words[0] == "mkdir":
                tops.update(w.strip("/").split("/", 1)[0] for w in words[1:] if w.startswith("/"))
    return tops


def _mkdirs(tree: Path, dest: Path) -> bool:
    """``mkdir -p`` inside the tree, never through a link (False when a link or a file is in the way)."""
    current = tree
    for part in dest.relative_to(tree).parts:
        current = current / part
        if current.is_symlink() or (current.exists() and not current.is_dir()):
            return False
        current.mkdir(mode=0o755, exist_ok=True)
    return True


def _chown_root(tree: Path) -> None:
    """Give the cached tree back to root (the replay ran as a throw-away uid), files writable by root only.

    A run never writes the cache: it gets real copies. But restoring a workspace between patch attempts
    hard-links cached files (``Baseline.materialise``); without group and other write bits (a Dockerfile's
    ``chmod 777``) the run's uid can then replace such a file, never change the cached copy in place. The
    owner's bits, which the run's uid gets on its copies, are kept.
    """
    root = os.geteuid() == 0
    for dirpath, dirnames, filenames in os.walk(tree):
        if root:
            os.chown(dirpath, 0, 0, follow_symlinks=False)
        for name in (*dirnames, *filenames):
            p = os.path.join(dirpath, name)
            if root:
                os.chown(p, 0, 0, follow_symlinks=False)
            st = os.lstat(p)
            if stat.S_ISREG(st.st_mode) and st.st_mode & 0o022:
                os.chmod(p, stat.S_IMODE(st.st_mode) & ~0o022)


@contextlib.contextmanager
def _lock(path: Path) -> Iterator[None]:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)
