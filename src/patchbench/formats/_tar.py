"""Safe, in-memory handling of gzipped tarballs (the ``task_binary`` column of Harbor parquet files).

:func:`read_tar_gz` never touches the disk: every member is read into memory and checked first, so a
hostile archive cannot write outside a directory, plant device files or exhaust memory. It rejects, with a
one-line :class:`~patchbench.errors.DatasetError` naming the source and the member:

* absolute member names and names with a ``..`` component (backslashes count as separators here, so
  Windows-style names cannot sneak a ``..`` through);
* symbolic and hard links whose target leaves the archive root, links to missing members, links to
  directories and link cycles (a link that stays inside the archive is replaced by its target's content);
* character and block devices, FIFOs, sparse files and member types tarfile does not know;
* more than ``max_members`` members, or more than ``max_bytes`` of file content. The decompressed stream is
  counted while it is read, so a gzip bomb stops as soon as it exceeds the budget instead of after it has
  been inflated;
* data that is not a gzip-compressed tar archive (including an empty archive).

When every member lives under one top-level directory (``bugsinpy-0001/task.toml``,
``bugsinpy-0001/tests/test.sh`` ...), that directory is stripped, because packers differ on whether they
wrap the task directory or its contents and readers want paths relative to the task directory. A
top-level name that is itself a file is never stripped.

:func:`pack_tar_gz` is the inverse: a deterministic archive (sorted names, zeroed times and owners, fixed
modes, gzip header without name or time), so identical input gives identical bytes on one installation
(a different zlib build may compress differently).
"""

from __future__ import annotations

import gzip
import io
import posixpath
import tarfile
import zlib
from collections.abc import Mapping

from ..errors import DatasetError
from ..task import check_relpath

__all__ = ["pack_tar_gz", "read_tar_gz"]

# Decompressed bytes allowed per member on top of its content: the header block, padding to a block
# boundary and a generous share for long-name / pax extension headers. Without this allowance a bomb could
# hide in header data that tarfile buffers before we ever see a member.
_HEADER_ALLOWANCE = 4096
# Fixed overhead for end-of-archive blocks and record padding.
_ARCHIVE_ALLOWANCE = 1 << 20
_MAX_LINK_HOPS = 32


class _BoundedReader:
    """A file-like view of the decompressed stream that fails once more than ``limit`` bytes were read."""

    def __init__(self, data: bytes, limit: int, source: str, max_bytes: int) -> None:
        self._gz = gzip.GzipFile(fileobj=io.BytesIO(data), mode="rb")
        self._limit = limit
        self._read = 0
        self._source = source
        self._max_bytes = max_bytes

    def read(self, size: int = -1) -> bytes:
        # Never ask gzip for an unbounded read: that would inflate the whole bomb before we could count it.
        want = self._limit - self._read + 1 if size is None or size < 0 else size
        chunk = self._gz.read(min(want, self._limit - self._read + 1))
        self._read += len(chunk)
        if self._read > self._limit:
            raise DatasetError(
                f"uncompressed size exceeds the {self._max_bytes}-byte limit (gzip bomb?)",
                source=self._source,
            )
        return chunk

    def close(self) -> None:
        self._gz.close()


def _clean_name(name: str, source: str, what: str = "member") -> str:
    """The member name as a root-relative POSIX path ('' for the root itself), or DatasetError."""
    unix = name.replace("\\", "/")
    if unix.startswith("/") or (len(unix) > 1 and unix[1] == ":"):
        raise DatasetError(f"{what} {name!r} has an absolute path", source=source)
    parts = [p for p in unix.split("/") if p not in ("", ".")]
    if ".." in parts:
        raise DatasetError(f"{what} {name!r} has a '..' component", source=source)
    return "/".join(parts)


def _resolve_symlink_target(name: str, target: str, source: str) -> str:
    """The root-relative path a symlink at ``name`` points to, or DatasetError when it leaves the root."""
    unix = target.replace("\\", "/")
    if not unix or unix.startswith("/") or (len(unix) > 1 and unix[1] == ":"):
        raise DatasetError(f"symlink {name!r} points outside the archive ({target!r})", source=source)
    joined = posixpath.normpath(posixpath.join(posixpath.dirname(name), unix))
    if joined == ".." or joined.startswith("../"):
        raise DatasetError(f"symlink {name!r} points outside the archive ({target!r})", source=source)
    return "" if joined == "." else joined


def read_tar_gz(
    data: bytes,
    *,
    source: str,
    max_members: int = 10_000,
    max_bytes: int = 512 * 2**20,
) -> dict[str, tuple[bytes, bool]]:
    """Read a gzipped tar archive into memory, checking every member.

    Args:
        data: the compressed archive.
        source: where the archive comes from (file and row), used in error messages.
        max_members: the most members (files, directories, links) accepted.
        max_bytes: the most file content, in bytes, accepted once decompressed (links count their
            target's size again, since extracting them would).

    Returns:
        ``{path: (content, executable)}`` for every regular file and every link resolved to a file, paths
        relative to the archive root, with a single wrapping top-level directory stripped.

    Raises:
        DatasetError: the archive is corrupt or not gzip, or a member is unsafe or over a limit.
    """
    files: dict[str, tuple[bytes, bool]] = {}
    links: dict[str, tuple[str, str]] = {}  # name -> (kind, root-relative target)
    dirs: set[str] = set()
    total = 0
    limit = max_bytes + _ARCHIVE_ALLOWANCE + _HEADER_ALLOWANCE * (max_members + 1)
    reader = _BoundedReader(data, limit, source, max_bytes)
    try:
        try:
            # Stream mode ("r|"): one forward pass, no seeking, so the bounded reader sees every byte.
            with tarfile.open(fileobj=reader, mode="r|") as tf:  # type: ignore[call-overload]
                count = 0
                for member in tf:
                    count += 1
                    if count > max_members:
                        raise DatasetError(f"more than {max_members} members", source=source)
                    name = _clean_name(member.name, source)
                    if not name:
                        continue  # the archive root itself ("./")
                    files.pop(name, None)
                    links.pop(name, None)
                    dirs.discard(name)
                    if member.isdir():
                        dirs.add(name)
                    elif member.issym():
                        links[name] = ("symlink", _resolve_symlink_target(name, member.linkname, source))
                    elif member.islnk():
                        target = _clean_name(member.linkname, source, what=f"hard link {name!r} target")
                        links[name] = ("hard link", target)
                    elif member.ischr() or member.isblk():
                        raise DatasetError(f"member {name!r} is a device file", source=source)
                    elif member.isfifo():
                        raise DatasetError(f"member {name!r} is a FIFO", source=source)
                    elif member.issparse():
                        raise DatasetError(f"member {name!r} is a sparse file (unsupported)", source=source)
                    elif member.isreg():
                        total += member.size
                        if total > max_bytes:
                            raise DatasetError(
                                f"uncompressed size exceeds the {max_bytes}-byte limit at member {name!r}",
                                source=source,
                            )
                        fh = tf.extractfile(member)
                        content = fh.read() if fh is not None else b""
                        files[name] = (content, bool(member.mode & 0o111))
                    else:
                        raise DatasetError(
                            f"member {name!r} has an unsupported type {member.type!r}", source=source
                        )
        except DatasetError:
            raise
        except (tarfile.TarError, OSError, EOFError, zlib.error, ValueError) as e:
            detail = " ".join(str(e).split()) or type(e).__name__
            raise DatasetError(f"not a valid gzipped tar archive ({detail})", source=source) from e
    finally:
        reader.close()

    # Directories implied by member paths count as directories even without an entry of their own.
    all_dirs = dirs | {posixpath.dirname(n) for n in (*files, *links)} - {""}
    all_dirs |= {d for n in all_dirs for d in _parents(n)}
    for name, (kind, target) in links.items():
        content, executable = _follow_link(name, kind, target, files, links, all_dirs, source)
        total += len(content)
        if total > max_bytes:
            raise DatasetError(
                f"uncompressed size exceeds the {max_bytes}-byte limit at link {name!r}", source=source
            )
        files[name] = (content, executable)
    return _strip_wrapper(files, dirs)


def _parents(path: str) -> list[str]:
    parts = path.split("/")
    return ["/".join(parts[:i]) for i in range(1, len(parts))]


def _follow_link(
    name: str,
    kind: str,
    target: str,
    files: Mapping[str, tuple[bytes, bool]],
    links: Mapping[str, tuple[str, str]],
    dirs: set[str],
    source: str,
) -> tuple[bytes, bool]:
    """The content a link finally points to (following chains of links), or DatasetError."""
    current = target
    for _ in range(_MAX_LINK_HOPS):
        if current in files:
            return files[current]
        if current == "" or current in dirs:
            raise DatasetError(f"{kind} {name!r} points to a directory ({target!r})", source=source)
        if current in links:
            current = links[current][1]
            continue
        raise DatasetError(f"{kind} {name!r} points to a missing member ({target!r})", source=source)
    raise DatasetError(f"{kind} {name!r} is part of a link cycle", source=source)


def _strip_wrapper(files: dict[str, tuple[bytes, bool]], dirs: set[str]) -> dict[str, tuple[bytes, bool]]:
    """Drop a single top-level directory that wraps every member (see the module docstring)."""
    names = set(files) | dirs
    tops = {n.split("/", 1)[0] for n in names}
    if len(tops) != 1:
        return files
    (top,) = tops
    if top in files or not any(n.startswith(top + "/") for n in files):
        return files
    cut = len(top) + 1
    return {name[cut:]: value for name, value in files.items()}


def pack_tar_gz(files: Mapping[str, tuple[bytes, bool]]) -> bytes:
    """Pack files into a deterministic gzipped tar archive.

    Names are sorted; every member is a regular file with mtime 0, uid/gid 0, empty owner names and mode
    0o755 when executable, else 0o644; the gzip header carries no file name and mtime 0. No directory
    entries are written (extractors create parents as needed).

    Args:
        files: ``{relative path: (content, executable)}``.

    Returns:
        The compressed archive.

    Raises:
        ValueError: a path is empty, absolute or climbs out with ``..``, or two paths normalise to the same
            name.
    """
    normalised: dict[str, tuple[bytes, bool]] = {}
    for path, value in files.items():
        name = check_relpath(path)
        if name in normalised:
            raise ValueError(f"duplicate path {path!r} in archive")
        normalised[name] = value
    buf = io.BytesIO()
    with (
        gzip.GzipFile(filename="", mode="wb", fileobj=buf, mtime=0) as gz,
        tarfile.open(fileobj=gz, mode="w", format=tarfile.PAX_FORMAT) as tf,
    ):
        for name in sorted(normalised):
            content, executable = normalised[name]
            info = tarfile.TarInfo(name)
            info.size = len(content)
            info.mtime = 0
            info.mode = 0o755 if executable else 0o644
            info.uid = info.gid = 0
            info.uname = info.gname = ""
            info.type = tarfile.REGTYPE
            tf.addfile(info, io.BytesIO(content))
    return buf.getvalue()
