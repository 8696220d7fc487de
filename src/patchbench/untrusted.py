"""The one reader for files the sandboxed code could have written (the grader's trust boundary).

Runner reports, reward files, workspace files the harness reads back and calibration records are all
read through :func:`read_untrusted`. The code under test runs as another uid and may replace a report in
an ``atexit`` handler after the tool wrote it, so nothing about such a file is trusted:

* every path component below the expected directory is opened relative to its parent with
  ``O_NOFOLLOW``: a symlink anywhere (to ``/dev/zero``, to a root-only file) is refused, never followed;
* the file is opened with ``O_NONBLOCK`` (a FIFO cannot hang the grader) and ``fstat`` must show a
  regular file, the same inode that was ``lstat``-ed, owned by the run's uid when it is known (a hard link
  to someone else's file is refused);
* the size is capped before anything is read, and the read itself is bounded (a file that grows while
  being read is cut at the cap, never read to its end).

A refused file raises :class:`~patchbench.errors.UnsafeFileError`, which the harness turns into the
candidate's ``unresolved`` with the reason: never an infrastructure error, never a hang.
:func:`scan_tree` checks a whole report directory the same way before any runner looks at it.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from .errors import UnsafeFileError

#: The largest report file a runner reads (one JUnit XML, one JSON report, one TAP or event log).
#: JUnit XML costs about 7x its size in memory once parsed: 16 MiB keeps the grader well under 300 MB.
REPORT_LIMIT = 16 * 2**20
#: The largest file a report directory may hold at all (``go test -json`` logs are read up to 64 MiB
#: and then marked cut; the parsers of structured reports refuse theirs past :data:`REPORT_LIMIT`).
REPORT_FILE_LIMIT = 64 * 2**20
#: The most a whole report directory may hold (Surefire writes one file per test class).
REPORT_DIR_LIMIT = 128 * 2**20
#: The most entries a report directory may hold.
REPORT_DIR_ENTRIES = 20_000
#: The most test entries one structured report may hold. Parsed, each costs the grader about 1.2 KB (the
#: XML tree and the result): 100,000 keep it near 220 MB, where 400,000 one-line ``<testcase/>`` entries,
#: 14 MiB, took it to 584 MB (measured). Real runs of one task are far below.
MAX_TEST_ENTRIES = 100_000
_CHUNK = 1 << 16
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_FILE_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC


def read_untrusted(
    path: Path,
    *,
    root: Path,
    limit: int = REPORT_LIMIT,
    owner: int | None = None,
    truncate: bool = False,
    entries: bytes | None = None,
) -> bytes:
    """The bytes of ``path``, a file below ``root`` that sandboxed code could have written.

    Args:
        path: the file; it must lie below ``root`` (``root`` itself is the harness's and trusted).
        root: the directory the file is expected in.
        limit: the most bytes read.
        owner: the uid that must own the file (the run's), when known.
        truncate: return the first ``limit`` bytes of a larger file instead of refusing it (readers
            that mark a cut report incomplete themselves).
        entries: the marker of one test entry (``b"<testcase"``): a file holding more than
            :data:`MAX_TEST_ENTRIES` of them is refused before it is parsed (bounded memory).

    Raises:
        FileNotFoundError: there is no such file (a runner may treat a missing report its own way).
        UnsafeFileError: the file is a symlink (or lies below one), not a regular file, owned by someone
            else, larger than ``limit``, holds too many ``entries``, or is outside ``root``.
        OSError: any other error opening or reading it.
    """
    fd = _open_below(path, root)
    try:
        st = os.fstat(fd)
        _check(path, st, owner)
        if st.st_size > limit and not truncate:
            raise UnsafeFileError(f"{path}: {_size(st.st_size)} is over the {_size(limit)} cap for this file")
        chunks: list[bytes] = []
        got = 0
        while got <= limit:
            try:
                b = os.read(fd, min(_CHUNK, limit + 1 - got))
            except BlockingIOError:  # pragma: no cover - a regular file never blocks
                break
            if not b:
                break
            chunks.append(b)
            got += len(b)
        data = b"".join(chunks)
        if len(data) > limit:
            if not truncate:
                raise UnsafeFileError(f"{path}: grew past the {_size(limit)} cap while being read")
            data = data[:limit]
        if entries is not None and data.count(entries) > MAX_TEST_ENTRIES:
            raise UnsafeFileError(
                f"{path}: more than {MAX_TEST_ENTRIES:,} test entries ({entries.decode()!r}): "
                "more than the grader parses"
            )
        return data
    finally:
        os.close(fd)


def read_untrusted_text(
    path: Path,
    *,
    root: Path,
    limit: int = REPORT_LIMIT,
    owner: int | None = None,
    entries: bytes | None = None,
) -> str:
    """:func:`read_untrusted`, decoded as UTF-8 with replacement characters."""
    data = read_untrusted(path, root=root, limit=limit, owner=owner, entries=entries)
    return data.decode("utf-8", errors="replace")


def scan_tree(
    root: Path,
    *,
    owner: int | None = None,
    file_limit: int = REPORT_FILE_LIMIT,
    total_limit: int = REPORT_DIR_LIMIT,
    max_entries: int = REPORT_DIR_ENTRIES,
    test_entries: bytes | None = None,
) -> str | None:
    """What is wrong with a directory sandboxed code wrote into, or None when it holds only what a test
    tool writes: directories and regular files of the run's uid, each and all within the caps.

    Nothing is followed: symlinks, FIFOs, sockets and devices are reported, not opened. With
    ``test_entries`` (a runner's marker of one test, see :data:`RUNNER_TEST_ENTRY`), the files' markers are
    counted in all, streamed in chunks: a runner that parses several reports (Surefire writes one per
    class) must not parse more than :data:`MAX_TEST_ENTRIES` tests from them together either.
    """
    total = 0
    count = 0
    files: list[Path] = []
    stack = [root]
    while stack:
        d = stack.pop()
        try:
            it = os.scandir(d)
        except OSError as e:
            return f"{d}: cannot list ({e.strerror})"
        with it:
            for entry in it:
                count += 1
                if count > max_entries:
                    return f"{root}: more than {max_entries} entries"
                try:
                    st = entry.stat(follow_symlinks=False)
                except OSError as e:
                    return f"{entry.path}: cannot stat ({e.strerror})"
                if stat.S_ISDIR(st.st_mode):
                    if owner is not None and st.st_uid != owner:
                        return f"{entry.path}: owned by uid {st.st_uid}, not the run's"
                    stack.append(Path(entry.path))
                    continue
                try:
                    _check(Path(entry.path), st, owner)
                except UnsafeFileError as e:
                    return str(e)
                if st.st_size > file_limit:
                    return f"{entry.path}: {_size(st.st_size)} is over the {_size(file_limit)} file cap"
                total += st.st_size
                if total > total_limit:
                    return f"{root}: more than {_size(total_limit)} in all"
                files.append(Path(entry.path))
    if test_entries is not None:
        found = 0
        for f in files:
            try:
                found += _count(f, root, test_entries)
            except (OSError, UnsafeFileError) as e:
                return f"{f}: cannot read ({e})"
            if found > MAX_TEST_ENTRIES:
                return (
                    f"{root}: more than {MAX_TEST_ENTRIES:,} test entries in all: more than the grader parses"
                )
    return None


#: The marker of one test entry in each runner's reports (counted by :func:`scan_tree`).
RUNNER_TEST_ENTRY: dict[str, bytes] = {
    "pytest": b"<testcase",
    "junit": b"<testcase",
    "jest": b'"title"',
    "vitest": b'"title"',
    "mocha": b'"title"',
    "node-test": b"ok ",
    "cargo-test": b'"event": "started"',
    "go-test": b'"Action":"run"',
}


def _count(path: Path, root: Path, marker: bytes) -> int:
    """How often ``marker`` occurs in a file, read in chunks through the same checks as a report."""
    fd = _open_below(path, root)
    n = 0
    carry = b""
    try:
        while True:
            b = os.read(fd, 1 << 20)
            if not b:
                return n
            chunk = carry + b
            n += chunk.count(marker)
            # keep a tail shorter than the marker: an occurrence across two reads is counted once
            carry = chunk[-(len(marker) - 1) :] if len(marker) > 1 else b""
    finally:
        os.close(fd)


def _open_below(path: Path, root: Path) -> int:
    """A descriptor for ``path``, every component below ``root`` opened with ``O_NOFOLLOW``."""
    try:
        rel = Path(os.path.abspath(path)).relative_to(os.path.abspath(root))
    except ValueError:
        raise UnsafeFileError(f"{path}: not inside {root}") from None
    parts = rel.parts
    if not parts or ".." in parts:
        raise UnsafeFileError(f"{path}: not a file inside {root}")
    fd = os.open(root, _DIR_FLAGS)
    try:
        for name in parts[:-1]:
            try:
                nxt = os.open(name, _DIR_FLAGS, dir_fd=fd)
            except OSError as e:
                if e.errno in (errno.ELOOP, errno.ENOTDIR):
                    raise UnsafeFileError(f"{path}: {name} is a symlink or not a directory") from None
                raise
            os.close(fd)
            fd = nxt
        name = parts[-1]
        # lstat first: a FIFO or a device is refused before it is even opened.
        try:
            before = os.stat(name, dir_fd=fd, follow_symlinks=False)
        except OSError as e:
            if e.errno == errno.ENOTDIR:
                raise UnsafeFileError(f"{path}: a parent is not a directory") from None
            raise
        if stat.S_ISLNK(before.st_mode):
            raise UnsafeFileError(f"{path}: is a symlink (not followed)")
        _check(path, before, None)
        try:
            out = os.open(name, _FILE_FLAGS, dir_fd=fd)
        except OSError as e:
            if e.errno == errno.ELOOP:
                raise UnsafeFileError(f"{path}: is a symlink (not followed)") from None
            raise
        after = os.fstat(out)
        if (after.st_dev, after.st_ino) != (before.st_dev, before.st_ino):
            os.close(out)
            raise UnsafeFileError(f"{path}: was replaced while being opened")
        return out
    finally:
        os.close(fd)


def _check(path: Path, st: os.stat_result, owner: int | None) -> None:
    if stat.S_ISLNK(st.st_mode):
        raise UnsafeFileError(f"{path}: is a symlink (not followed)")
    if not stat.S_ISREG(st.st_mode):
        raise UnsafeFileError(f"{path}: is not a regular file (a {_kind(st.st_mode)})")
    if owner is not None and st.st_uid != owner:
        raise UnsafeFileError(f"{path}: owned by uid {st.st_uid}, not by the run's uid {owner}")


def _kind(mode: int) -> str:
    for test, name in (
        (stat.S_ISFIFO, "FIFO"),
        (stat.S_ISSOCK, "socket"),
        (stat.S_ISCHR, "character device"),
        (stat.S_ISBLK, "block device"),
        (stat.S_ISDIR, "directory"),
    ):
        if test(mode):
            return name
    return "special file"


def _size(n: int) -> str:
    return f"{n / 2**20:.1f} MiB" if n >= 2**20 else f"{n} bytes"
