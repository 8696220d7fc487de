"""Repository workspaces: a whole repository at ``base_commit``, from a local cache or a clone.

Sources, tried in order (each attempt is named in the error when all fail, and the one used is named in
the verdict's notes):

1. the local repository cache — the directories given with ``--repos``/``repos=``, then
   ``$PATCHBENCH_REPOS`` (``os.pathsep``-separated), then the built-in dataset's own mirrors. In each
   directory, for ``owner/name``: a bare mirror or a clone at ``owner/name.git``, ``owner/name``,
   ``owner__name.git``, ``owner__name``, ``name.git`` or ``name``; a git bundle at the same names with
   ``.bundle``; or a snapshot of the tree at base_commit for one row, ``snapshots/<row id>.tar.gz`` or
   ``<row id>.tar.gz``;
2. ``git clone --mirror`` of ``https://github.com/owner/name`` in the setup phase, when the network is
   allowed (the mirror is kept in the cache).

The checkout is cached per (repo, commit) as a plain tree with a fresh one-commit git history: the
workspace a candidate and its tests see has no commit, tag or reflog past base_commit, so future fixes
cannot leak (SWE-bench's lesson). Each run gets its own copy of the tree (hard-linked files the run can
replace but not modify, see :func:`patchbench.workspace.copy_tree`); the cached tree itself is never
handed to a run.
"""

from __future__ import annotations

import contextlib
import fcntl
import io
import logging
import os
import shutil
import subprocess
import tarfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from .errors import EnvError
from .lifecycle import default_cache_dir
from .task import Repository

log = logging.getLogger("patchbench.repos")

#: Author/date of the one commit the checkout's fresh history holds (deterministic).
_GIT_ENV = {
    "GIT_AUTHOR_NAME": "patchbench",
    "GIT_AUTHOR_EMAIL": "patchbench@localhost",
    "GIT_COMMITTER_NAME": "patchbench",
    "GIT_COMMITTER_EMAIL": "patchbench@localhost",
    "GIT_AUTHOR_DATE": "2000-01-01T00:00:00Z",
    "GIT_COMMITTER_DATE": "2000-01-01T00:00:00Z",
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_TERMINAL_PROMPT": "0",
}


class RepoNotFound(EnvError):
    """No source for the repository at that commit could be found."""


@dataclass(frozen=True)
class Checkout:
    """A cached tree of a repository at a commit.

    Attributes:
        path: the cached tree (never handed to a run; see :func:`copy_tree`).
        source: where it came from, for the verdict.
        cache_hit: whether it was already cached.
    """

    path: Path
    source: str
    cache_hit: bool


def builtin_repos_dir() -> Path:
    """The built-in dataset's repository mirrors."""
    return Path(__file__).resolve().parent / "data" / "patchbench" / "repos"


def search_dirs(extra: Sequence[str | Path] = ()) -> list[Path]:
    """The repository cache directories, in the order they are searched."""
    dirs = [Path(d) for d in extra]
    env = os.environ.get("PATCHBENCH_REPOS", "")
    dirs += [Path(d) for d in env.split(os.pathsep) if d]
    dirs.append(builtin_repos_dir())
    return dirs


def _git(
    args: list[str],
    *,
    cwd: Path | None = None,
    git_dir: Path | None = None,
    timeout: float = 600,
    stdout: int | None = None,
) -> subprocess.CompletedProcess[bytes]:
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": os.environ.get("HOME", "/tmp"),
        **_GIT_ENV,
    }
    cmd = ["git"]
    if git_dir is not None:
        cmd += [f"--git-dir={git_dir}"]
    try:
        return subprocess.run(
            cmd + args,
            cwd=cwd,
            env=env,
            capture_output=stdout is None,
            stdout=stdout,
            timeout=timeout,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as e:
        return subprocess.CompletedProcess(cmd + args, 1, b"", str(e).encode())


def _has_commit(git_dir: Path, commit: str) -> bool:
    return _git(["cat-file", "-e", f"{commit}^{{commit}}"], git_dir=git_dir).returncode == 0


def _git_dir_of(path: Path) -> Path | None:
    if (path / ".git").is_dir():
        return path / ".git"
    if (path / "HEAD").is_file() and (path / "objects").is_dir():
        return path
    return None


@contextlib.contextmanager
def _lock(path: Path) -> Iterator[None]:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


class RepoCache:
    """Finds repositories and keeps checkouts per (repo, commit).

    Args:
        cache_dir: where mirrors and checkouts are kept (default: the environment cache).
        repos: local repository cache directories searched first.
        network: whether ``git clone`` may be tried when no local source has the commit.
    """

    def __init__(
        self, cache_dir: Path | None = None, repos: Sequence[str | Path] = (), network: bool = True
    ) -> None:
        self.cache_dir = cache_dir or default_cache_dir()
        self.dirs = search_dirs(repos)
        self.network = network

    def _slug(self, repo: str) -> str:
        return repo.replace("/", "__")

    def _candidates(self, repo: str) -> Iterator[Path]:
        owner, _, name = repo.rpartition("/")
        stems = [repo, self._slug(repo), name] if owner else [repo]
        for d in self.dirs:
            for stem in stems:
                for suffix in (".git", "", ".bundle"):
                    yield d / f"{stem}{suffix}"

    def checkout(self, repository: Repository, *, row_id: str = "") -> Checkout:
        """The cached tree of ``repository`` at its base commit, made on first use.

        Raises:
            RepoNotFound: no source has the commit; the message names the repo, the commit and every
                place tried.
        """
        commit = repository.base_commit
        dest = self.cache_dir / "checkouts" / self._slug(repository.repo) / commit
        marker = dest.with_name(commit + ".source")
        if marker.exists() and dest.is_dir():
            return Checkout(dest, marker.read_text().strip(), True)
        with _lock(self.cache_dir / "locks" / f"checkout-{self._slug(repository.repo)}-{commit}.lock"):
            if marker.exists() and dest.is_dir():
                return Checkout(dest, marker.read_text().strip(), True)
            tried: list[str] = []
            source = self._materialise(repository, row_id, dest, tried)
            if source is None:
                raise RepoNotFound(
                    f"repository {repository.repo} at {commit} not found; tried: "
                    + "; ".join(tried)
                    + ". Pass --repos DIR (or set PATCHBENCH_REPOS) with a mirror, clone, bundle or snapshot."
                )
            marker.write_text(source + "\n")
            return Checkout(dest, source, False)

    def _materialise(self, repository: Repository, row_id: str, dest: Path, tried: list[str]) -> str | None:
        commit = repository.base_commit
        for path in self._candidates(repository.repo):
            if not path.exists():
                continue
            if path.suffix == ".bundle" and path.is_file():
                git_dir = self._mirror_from(str(path), repository.repo, tried, what="bundle")
            else:
                git_dir = _git_dir_of(path)
            if git_dir is None:
                tried.append(f"{path} (not a git repository)")
                continue
            if not _has_commit(git_dir, commit):
                tried.append(f"{path} (no commit {commit})")
                continue
            self._extract(git_dir, commit, dest)
            return f"local {path}"
        for d in self.dirs:
            for snap in (d / "snapshots" / f"{row_id}.tar.gz", d / f"{row_id}.tar.gz"):
                if row_id and snap.is_file():
                    self._extract_snapshot(snap, commit, dest)
                    return f"snapshot {snap}"
        searched = ", ".join(str(d) for d in self.dirs)
        tried.append(f"local cache directories ({searched}): no mirror, clone, bundle or snapshot")
        if not self.network:
            tried.append("git clone: not allowed (network off)")
            return None
        if "/" not in repository.repo:
            tried.append(f"git clone: {repository.repo!r} is not owner/name")
            return None
        url = f"https://github.com/{repository.repo}.git"
        git_dir = self._mirror_from(url, repository.repo, tried, what="clone")
        if git_dir is None:
            return None
        if not _has_commit(git_dir, commit):
            tried.append(f"{url} (no commit {commit})")
            return None
        self._extract(git_dir, commit, dest)
        return f"clone {url}"

    def _mirror_from(self, url: str, repo: str, tried: list[str], *, what: str) -> Path | None:
        mirror = self.cache_dir / "mirrors" / f"{self._slug(repo)}.git"
        if _git_dir_of(mirror) is not None:
            _git(["fetch", "-q", url, "+refs/*:refs/*"], git_dir=mirror, timeout=1800)
            return mirror
        shutil.rmtree(mirror, ignore_errors=True)
        mirror.parent.mkdir(parents=True, exist_ok=True)
        r = _git(["clone", "-q", "--mirror", url, str(mirror)], timeout=1800)
        if r.returncode != 0:
            msg = " ".join(r.stderr.decode(errors="replace").split())[-200:]
            tried.append(f"git {what} {url} ({msg or 'failed'})")
            shutil.rmtree(mirror, ignore_errors=True)
            return None
        return mirror

    def _extract(self, git_dir: Path, commit: str, dest: Path) -> None:
        r = _git(["archive", "--format=tar", commit], git_dir=git_dir, stdout=subprocess.PIPE)
        if r.returncode != 0:
            raise EnvError(f"git archive {commit} failed in {git_dir}")
        self._write_tree(io.BytesIO(r.stdout), commit, dest)

    def _extract_snapshot(self, snap: Path, commit: str, dest: Path) -> None:
        with snap.open("rb") as fh:
            self._write_tree(io.BytesIO(fh.read()), commit, dest, gz=True)

    def _write_tree(self, data: io.BytesIO, commit: str, dest: Path, *, gz: bool = False) -> None:
        tmp = dest.with_name(f".{dest.name}.tmp-{os.getpid()}")
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.mkdir(parents=True)
        try:
            with tarfile.open(fileobj=data, mode="r:gz" if gz else "r:") as tar:
                # git archive and our own snapshots only; the data filter still refuses anything unsafe.
                tar.extractall(tmp, filter="data")
            # A fresh history of one commit: nothing past base_commit is reachable from the workspace.
            for args in (
                ["init", "-q"],
                ["add", "-A", "-f"],
                ["commit", "-q", "--allow-empty", "--no-verify", "-m", f"base_commit {commit}"],
            ):
                r = _git(args, cwd=tmp)
                if r.returncode != 0:
                    raise EnvError(
                        f"git {args[0]} failed making the checkout: "
                        + " ".join(r.stderr.decode(errors="replace").split())[-200:]
                    )
            shutil.rmtree(dest, ignore_errors=True)
            os.rename(tmp, dest)
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise
        log.info("checkout of %s cached at %s", commit, dest)
