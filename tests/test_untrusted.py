"""The safe reader for sandbox-written files: nothing followed, nothing blocking, nothing unbounded."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from patchbench.errors import ResultParseError, UnsafeFileError
from patchbench.untrusted import read_untrusted, read_untrusted_text, scan_tree


def test_reads_a_plain_file(tmp_path: Path) -> None:
    (tmp_path / "r.xml").write_bytes(b"<testsuite/>")
    assert read_untrusted(tmp_path / "r.xml", root=tmp_path) == b"<testsuite/>"
    assert read_untrusted_text(tmp_path / "r.xml", root=tmp_path) == "<testsuite/>"


def test_a_missing_file_is_file_not_found(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        read_untrusted(tmp_path / "nope.xml", root=tmp_path)


def test_unsafe_file_error_is_a_result_parse_error() -> None:
    assert issubclass(UnsafeFileError, ResultParseError)


def test_a_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    """A FIFO with no writer: a plain open() would block the grader forever."""
    os.mkfifo(tmp_path / "r.xml")
    out: list[BaseException] = []

    def go() -> None:
        try:
            read_untrusted(tmp_path / "r.xml", root=tmp_path)
        except BaseException as e:
            out.append(e)

    t = threading.Thread(target=go, daemon=True)
    t.start()
    t.join(5)
    assert not t.is_alive(), "reading a FIFO blocked"
    assert isinstance(out[0], UnsafeFileError) and "FIFO" in str(out[0])


def test_a_symlink_to_dev_zero_is_refused(tmp_path: Path) -> None:
    (tmp_path / "r.xml").symlink_to("/dev/zero")
    with pytest.raises(UnsafeFileError, match="symlink"):
        read_untrusted(tmp_path / "r.xml", root=tmp_path)


def test_a_symlink_to_a_readable_file_is_not_followed(tmp_path: Path) -> None:
    secret = tmp_path / "secret"
    secret.write_text("<testsuite><testcase name='leak'/></testsuite>")
    rep = tmp_path / "rep"
    rep.mkdir()
    (rep / "r.xml").symlink_to(secret)
    with pytest.raises(UnsafeFileError, match="symlink"):
        read_untrusted(rep / "r.xml", root=rep)


def test_a_symlinked_parent_directory_is_refused(tmp_path: Path) -> None:
    real = tmp_path / "real"
    real.mkdir()
    (real / "r.xml").write_text("x")
    rep = tmp_path / "rep"
    rep.mkdir()
    (rep / "sub").symlink_to(real)
    with pytest.raises(UnsafeFileError):
        read_untrusted(rep / "sub" / "r.xml", root=rep)


def test_a_path_outside_the_root_is_refused(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").write_text("x")
    with pytest.raises(UnsafeFileError, match="not inside"):
        read_untrusted(tmp_path / "b", root=tmp_path / "a")
    with pytest.raises(UnsafeFileError):
        read_untrusted(tmp_path / "a" / ".." / "b", root=tmp_path / "a")


def test_an_oversized_file_is_refused_before_reading(tmp_path: Path) -> None:
    with (tmp_path / "r.xml").open("wb") as fh:
        fh.truncate(10_000_000)  # sparse: costs no disk, but st_size says 10 MB
    with pytest.raises(UnsafeFileError, match="cap"):
        read_untrusted(tmp_path / "r.xml", root=tmp_path, limit=1_000_000)


def test_truncate_returns_the_head_of_a_large_file(tmp_path: Path) -> None:
    (tmp_path / "r.log").write_bytes(b"a" * 100)
    assert read_untrusted(tmp_path / "r.log", root=tmp_path, limit=10, truncate=True) == b"a" * 10


def test_a_file_of_another_owner_is_refused(tmp_path: Path) -> None:
    (tmp_path / "r.xml").write_text("x")
    os.chown(tmp_path / "r.xml", 4242, 4242)
    with pytest.raises(UnsafeFileError, match="uid 4242"):
        read_untrusted(tmp_path / "r.xml", root=tmp_path, owner=4243)
    assert read_untrusted(tmp_path / "r.xml", root=tmp_path, owner=4242) == b"x"


def test_a_directory_is_not_a_regular_file(tmp_path: Path) -> None:
    (tmp_path / "r.xml").mkdir()
    with pytest.raises(UnsafeFileError, match="directory"):
        read_untrusted(tmp_path / "r.xml", root=tmp_path)


def test_scan_tree_accepts_what_a_tool_writes(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "TEST-a.xml").write_text("<testsuite/>")
    (tmp_path / "junit.xml").write_text("<testsuite/>")
    assert scan_tree(tmp_path) is None


@pytest.mark.parametrize("kind", ["fifo", "symlink", "dangling", "oversized", "owner", "total"])
def test_scan_tree_reports_anything_else(tmp_path: Path, kind: str) -> None:
    p = tmp_path / "deep" / "r.xml"
    p.parent.mkdir()
    owner = None
    if kind == "fifo":
        os.mkfifo(p)
    elif kind == "symlink":
        p.symlink_to("/etc/shadow")
    elif kind == "dangling":
        p.symlink_to(tmp_path / "nowhere")
    elif kind == "oversized":
        with p.open("wb") as fh:
            fh.truncate(2000)
    elif kind == "owner":
        p.write_text("x")
        owner = os.getuid() + 1
    else:
        for n in range(5):
            (p.parent / f"{n}.xml").write_bytes(b"x" * 400)
    problem = scan_tree(tmp_path, owner=owner, file_limit=1000, total_limit=1500)
    assert problem is not None and str(tmp_path) in problem


# -- every runner reads its report through the safe reader ------------------------------------------

_REPORTS = [
    ("pytest", "junit.xml"),
    ("junit", "TEST-x.xml"),
    ("node-test", "node.tap"),
    ("jest", "jest.json"),
    ("vitest", "vitest.json"),
    ("mocha", "mocha.json"),
    ("cargo-test", "cargo-test-stdout.log"),
    ("go-test", "go-test.jsonl"),
]


@pytest.mark.parametrize(("runner", "name"), _REPORTS)
@pytest.mark.parametrize("attack", ["fifo", "dev-zero", "secret"])
def test_every_runner_refuses_a_planted_report(tmp_path: Path, runner: str, name: str, attack: str) -> None:
    """Each runner's report read goes through read_untrusted: a FIFO does not hang it, a symlink to
    /dev/zero or to a file outside the report directory is neither followed nor parsed."""
    from patchbench.runners import get_runner
    from patchbench.runners._base import RunOutput

    secret = tmp_path / "secret.xml"
    secret.write_text('<testsuite><testcase classname="leak" name="leaked"/></testsuite>')
    rep = tmp_path / "rep"
    rep.mkdir()
    target = rep / name
    if attack == "fifo":
        os.mkfifo(target)
    elif attack == "dev-zero":
        target.symlink_to("/dev/zero")
    else:
        target.symlink_to(secret)
    out = RunOutput(stdout="", stderr="", exit_code=1, report_dir=rep)
    result: list[object] = []

    def go() -> None:
        try:
            result.append(get_runner(runner).parse(out))
        except BaseException as e:
            result.append(e)

    t = threading.Thread(target=go, daemon=True)
    t.start()
    t.join(10)
    assert not t.is_alive(), f"{runner} blocked on a {attack} report"
    got = result[0]
    if isinstance(got, BaseException):
        # junit skips a report that is not a file and folds a refused one into its own message
        assert isinstance(got, UnsafeFileError if runner != "junit" else ResultParseError), got
    else:  # a runner that skips an unreadable file must not have read the planted one
        assert "leak" not in repr(got)


def test_a_report_with_too_many_test_entries_is_refused_before_parsing(tmp_path: Path) -> None:
    """400,000 one-line <testcase/> entries (14 MiB, under the size cap) took the grader to 584 MB."""
    from patchbench.untrusted import MAX_TEST_ENTRIES

    row = b'<testcase classname="a" name="b"/>'
    (tmp_path / "r.xml").write_bytes(b"<testsuite>" + row * (MAX_TEST_ENTRIES + 1) + b"</testsuite>")
    with pytest.raises(UnsafeFileError, match="test entries"):
        read_untrusted(tmp_path / "r.xml", root=tmp_path, entries=b"<testcase")
    (tmp_path / "ok.xml").write_bytes(b"<testsuite>" + row * MAX_TEST_ENTRIES + b"</testsuite>")
    assert read_untrusted(tmp_path / "ok.xml", root=tmp_path, entries=b"<testcase")


def test_scan_tree_counts_test_entries_across_every_report(tmp_path: Path) -> None:
    """Surefire writes one report per class: each under the per-file cap, many together must not be."""
    from patchbench.untrusted import MAX_TEST_ENTRIES

    row = b'<testcase classname="a" name="b"/>'
    per_file = MAX_TEST_ENTRIES // 4 + 1
    for n in range(4):
        (tmp_path / f"TEST-{n}.xml").write_bytes(b"<testsuite>" + row * per_file + b"</testsuite>")
    problem = scan_tree(tmp_path, test_entries=b"<testcase")
    assert problem is not None and "test entries in all" in problem
    assert scan_tree(tmp_path) is None  # without a marker only sizes and types are checked
    (tmp_path / "TEST-3.xml").unlink()
    assert scan_tree(tmp_path, test_entries=b"<testcase") is None


def test_entries_split_across_read_chunks_are_counted_once(tmp_path: Path) -> None:
    from patchbench.untrusted import _count

    marker = b"<testcase"
    # place one marker across the 1 MiB chunk boundary
    data = b"x" * ((1 << 20) - 4) + marker + b"y" * 10 + marker
    (tmp_path / "r.xml").write_bytes(data)
    assert _count(tmp_path / "r.xml", tmp_path, marker) == 2


def test_every_report_reading_runner_has_a_test_entry_marker() -> None:
    """The harness counts a runner's test entries across its report directory by this marker."""
    from patchbench.runners import RUNNERS
    from patchbench.untrusted import RUNNER_TEST_ENTRY

    assert set(RUNNER_TEST_ENTRY) == set(RUNNERS) - {"tap"}  # TAP is read from stdout only
