"""Safe in-memory tarball reading and deterministic packing (formats/_tar.py)."""

from __future__ import annotations

import gzip
import io
import tarfile

import pytest

from patchbench.errors import DatasetError
from patchbench.formats._tar import pack_tar_gz, read_tar_gz

SOURCE = "data/tasks.parquet [row x]"


def _member(
    name: str, kind: bytes = tarfile.REGTYPE, *, data: bytes = b"", link: str = "", mode: int = 0o644
):
    info = tarfile.TarInfo(name)
    info.type = kind
    info.mode = mode
    info.linkname = link
    if kind in (tarfile.REGTYPE, tarfile.GNUTYPE_LONGNAME):
        info.size = len(data)
    return info, data


def _tar(*members: tuple[tarfile.TarInfo, bytes], fmt: int = tarfile.GNU_FORMAT) -> bytes:
    """A gzipped tar of the given members, built with tarfile exactly as given (no sanitising)."""
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=fmt) as tf:
        for info, data in members:
            tf.addfile(info, io.BytesIO(data) if info.isreg() or info.size else None)
    return gzip.compress(raw.getvalue(), mtime=0)


def _reject(blob: bytes, *words: str, **limits: int) -> str:
    with pytest.raises(DatasetError) as exc:
        read_tar_gz(blob, source=SOURCE, **limits)
    message = str(exc.value)
    assert "\n" not in message
    assert message.startswith(SOURCE + ": ")
    for word in words:
        assert word in message
    return message


# ----------------------------------------------------------------------------------------------- reading


def test_regular_files_and_executable_bits() -> None:
    blob = _tar(
        _member("task.toml", data=b'version = "1.0"\n'),
        _member("tests/test.sh", data=b"#!/bin/bash\n", mode=0o755),
        _member("tests/", tarfile.DIRTYPE, mode=0o755),
        _member("blob.bin", data=b"\x00\xff\x10"),
    )
    assert read_tar_gz(blob, source=SOURCE) == {
        "task.toml": (b'version = "1.0"\n', False),
        "tests/test.sh": (b"#!/bin/bash\n", True),
        "blob.bin": (b"\x00\xff\x10", False),
    }


def test_dot_slash_names_are_normalised() -> None:
    blob = _tar(
        _member("./", tarfile.DIRTYPE), _member("./a/b.txt", data=b"x"), _member("./c.txt", data=b"y")
    )
    assert read_tar_gz(blob, source=SOURCE) == {"a/b.txt": (b"x", False), "c.txt": (b"y", False)}


def test_single_top_level_directory_is_stripped() -> None:
    blob = _tar(
        _member("bugsinpy-0001/", tarfile.DIRTYPE),
        _member("bugsinpy-0001/task.toml", data=b"t"),
        _member("bugsinpy-0001/tests/test.sh", data=b"s", mode=0o755),
    )
    assert read_tar_gz(blob, source=SOURCE) == {"task.toml": (b"t", False), "tests/test.sh": (b"s", True)}


def test_top_level_directory_kept_when_not_wrapping_everything() -> None:
    blob = _tar(_member("task/a.txt", data=b"a"), _member("b.txt", data=b"b"))
    assert set(read_tar_gz(blob, source=SOURCE)) == {"task/a.txt", "b.txt"}
    single_file = _tar(_member("only.txt", data=b"o"))
    assert read_tar_gz(single_file, source=SOURCE) == {"only.txt": (b"o", False)}


def test_links_inside_the_archive_are_resolved_to_content() -> None:
    blob = _tar(
        _member("dir/real.py", data=b"print(1)\n", mode=0o755),
        _member("dir/sym.py", tarfile.SYMTYPE, link="real.py"),
        _member("up.py", tarfile.SYMTYPE, link="dir/sym.py"),
        _member("hard.py", tarfile.LNKTYPE, link="dir/real.py"),
    )
    files = read_tar_gz(blob, source=SOURCE)
    assert files["dir/sym.py"] == files["up.py"] == files["hard.py"] == (b"print(1)\n", True)


# -------------------------------------------------------------------------------------------- rejections


def test_rejects_absolute_member() -> None:
    _reject(_tar(_member("/etc/cron.d/evil", data=b"x")), "absolute", "/etc/cron.d/evil")


@pytest.mark.parametrize("name", ["../evil.sh", "a/../../evil.sh", "a/..\\..\\evil.sh"])
def test_rejects_dotdot_member(name: str) -> None:
    _reject(_tar(_member(name, data=b"x")), "'..'", "evil.sh")


@pytest.mark.parametrize("target", ["../../etc/passwd", "/etc/passwd", "a/../../x"])
def test_rejects_symlink_escaping(target: str) -> None:
    _reject(_tar(_member("link", tarfile.SYMTYPE, link=target)), "symlink", "'link'", "outside")


@pytest.mark.parametrize("target", ["../outside.txt", "/etc/passwd"])
def test_rejects_hardlink_escaping(target: str) -> None:
    _reject(
        _tar(_member("f.txt", data=b"x"), _member("hard", tarfile.LNKTYPE, link=target)), "hard link", "hard"
    )


def test_rejects_link_to_missing_member() -> None:
    _reject(
        _tar(_member("a.txt", data=b"a"), _member("l", tarfile.SYMTYPE, link="nope.txt")), "missing", "'l'"
    )


def test_rejects_link_to_directory_and_cycles() -> None:
    _reject(_tar(_member("d/x", data=b"x"), _member("l", tarfile.SYMTYPE, link="d")), "directory")
    _reject(
        _tar(_member("a", tarfile.SYMTYPE, link="b"), _member("b", tarfile.SYMTYPE, link="a")),
        "cycle",
    )


@pytest.mark.parametrize(("kind", "word"), [(tarfile.CHRTYPE, "device"), (tarfile.BLKTYPE, "device")])
def test_rejects_device_files(kind: bytes, word: str) -> None:
    _reject(_tar(_member("dev/null", kind)), word, "dev/null")


def test_rejects_fifo() -> None:
    _reject(_tar(_member("pipe", tarfile.FIFOTYPE)), "FIFO", "pipe")


def test_rejects_too_many_members() -> None:
    blob = _tar(*(_member(f"f{i}.txt", data=b"x") for i in range(6)))
    _reject(blob, "more than 5 members", max_members=5)
    assert len(read_tar_gz(blob, source=SOURCE, max_members=6)) == 6


def test_rejects_too_many_bytes() -> None:
    blob = _tar(_member("a.bin", data=b"a" * 600), _member("b.bin", data=b"b" * 600))
    _reject(blob, "1000-byte limit", "b.bin", max_bytes=1000)
    assert len(read_tar_gz(blob, source=SOURCE, max_bytes=1200)) == 2


def test_links_count_towards_the_byte_limit() -> None:
    blob = _tar(_member("a.bin", data=b"a" * 600), _member("l", tarfile.LNKTYPE, link="a.bin"))
    _reject(blob, "limit", max_bytes=1000)


def test_gzip_bomb_stops_early() -> None:
    # 64 MiB of zeros compresses to ~64 KiB; the limit must trip long before it is all inflated.
    bomb = _tar(_member("zeros.bin", data=bytes(64 * 2**20)))
    assert len(bomb) < 200_000
    _reject(bomb, "limit", max_bytes=2**20)


def test_bomb_hidden_in_a_header_stops_early() -> None:
    # A GNU long-name header is read whole by tarfile before any member is seen: only the bounded
    # decompressed stream can stop it.
    header_bomb = _tar(
        _member("././@LongLink", tarfile.GNUTYPE_LONGNAME, data=b"n" * (32 * 2**20)),
        _member("x", data=b"x"),
    )
    _reject(header_bomb, "limit", "gzip bomb", max_bytes=2**20, max_members=10)


@pytest.mark.parametrize(
    "blob",
    [
        b"",
        b"definitely not gzip",
        gzip.compress(b"gzip, but not a tar archive" * 40),
        _tar(_member("a.txt", data=b"a" * 5000))[:-200],
    ],
    ids=["empty", "not-gzip", "not-tar", "truncated"],
)
def test_rejects_corrupt_data(blob: bytes) -> None:
    _reject(blob, "not a valid gzipped tar archive")


# ----------------------------------------------------------------------------------------------- packing


def test_pack_is_deterministic() -> None:
    files = {"b.txt": (b"b", False), "a/run.sh": (b"#!/bin/sh\n", True), "bin.dat": (b"\x00\xff", False)}
    first = pack_tar_gz(files)
    again = pack_tar_gz(dict(reversed(list(files.items()))))
    assert first == again
    assert read_tar_gz(first, source=SOURCE) == files


def test_pack_normalises_metadata() -> None:
    blob = pack_tar_gz({"z.txt": (b"z", False), "a.sh": (b"a", True)})
    assert blob[4:8] == b"\x00\x00\x00\x00"  # gzip header mtime
    with tarfile.open(fileobj=io.BytesIO(blob), mode="r:gz") as tf:
        members = tf.getmembers()
    assert [m.name for m in members] == ["a.sh", "z.txt"]
    for m in members:
        assert (m.mtime, m.uid, m.gid, m.uname, m.gname) == (0, 0, 0, "", "")
    assert [m.mode for m in members] == [0o755, 0o644]


@pytest.mark.parametrize("path", ["/abs.txt", "../up.txt", ""])
def test_pack_rejects_unsafe_paths(path: str) -> None:
    with pytest.raises(ValueError):
        pack_tar_gz({path: (b"x", False)})
