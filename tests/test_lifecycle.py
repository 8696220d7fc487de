"""Run directories: the disk quota, cleanup, and the reaper of what a killed patchbench left."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from patchbench.errors import InputError
from patchbench.lifecycle import (
    DEFAULT_DISK_QUOTA,
    OWNER_FILE,
    cgroup_name,
    disk_quota,
    open_run_dir,
    owner_alive,
    owner_tag,
    reap_stale,
)

root_only = pytest.mark.skipif(os.geteuid() != 0, reason="mounting the quota tmpfs needs root")


def _dead_tag() -> str:
    p = subprocess.Popen([sys.executable, "-c", "pass"])
    tag = owner_tag(p.pid)
    p.wait()
    return tag


@pytest.mark.parametrize(
    ("value", "expected"),
    [("", DEFAULT_DISK_QUOTA), ("512M", 512 * 2**20), ("3g", 3 * 2**30), ("1000", 1000), ("none", None)],
)
def test_disk_quota_from_the_environment(monkeypatch: pytest.MonkeyPatch, value: str, expected: int) -> None:
    monkeypatch.setenv("PATCHBENCH_DISK_QUOTA", value)
    assert disk_quota() == expected


def test_a_bad_disk_quota_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATCHBENCH_DISK_QUOTA", "lots")
    with pytest.raises(InputError, match="PATCHBENCH_DISK_QUOTA"):
        disk_quota()


def test_owner_tags_tell_live_from_dead_processes() -> None:
    assert owner_alive(owner_tag())
    assert not owner_alive(_dead_tag())
    assert cgroup_name().startswith(f"patchbench-{owner_tag()}-")


@root_only
def test_a_run_directory_is_a_tmpfs_of_the_quota_and_reports_when_full(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATCHBENCH_DISK_QUOTA", "4M")
    rd = open_run_dir("q", tmp_path)
    try:
        assert rd.quota == 4 * 2**20 and os.path.ismount(rd.path)
        assert not rd.full()
        with pytest.raises(OSError), (rd.path / "big").open("wb") as fh:
            fh.write(b"x" * (5 * 2**20))
        assert rd.full()
    finally:
        rd.close()
    assert not rd.path.exists()


@root_only
def test_keeping_a_run_directory_copies_it_off_the_tmpfs_without_opening_fifos(tmp_path: Path) -> None:
    """A FIFO the run left used to be opened by a copy: keep must never block on it."""
    rd = open_run_dir("k", tmp_path)
    (rd.path / "workspace").mkdir()
    (rd.path / "workspace" / "f.txt").write_text("kept")
    os.mkfifo(rd.path / "workspace" / "pipe")
    t = threading.Thread(target=rd.close, kwargs={"keep": True}, daemon=True)
    t.start()
    t.join(20)
    assert not t.is_alive(), "keeping the run directory blocked"
    assert not os.path.ismount(rd.path)
    assert (rd.path / "workspace" / "f.txt").read_text() == "kept"
    subprocess.run(["rm", "-rf", str(rd.path)], check=True)


def test_the_reaper_removes_what_a_dead_process_left(tmp_path: Path) -> None:
    dead = tmp_path / "patchbench-task-abc"
    dead.mkdir()
    (dead / OWNER_FILE).write_text(_dead_tag())
    (dead / "workspace").mkdir()
    live = tmp_path / "patchbench-task-def"
    live.mkdir()
    (live / OWNER_FILE).write_text(owner_tag())
    unowned = tmp_path / "patchbench-other-ghi"  # another tool's temp dir: no owner file
    unowned.mkdir()
    groups = tmp_path / "cgroups"
    groups.mkdir()
    stale_cg = groups / f"patchbench-{_dead_tag()}-0123abcd"
    live_cg = groups / f"patchbench-{owner_tag()}-0123abcd"
    stale_cg.mkdir()
    live_cg.mkdir()
    removed = reap_stale(tmp_path, cgroup_parents=[groups])
    assert sorted(removed) == sorted([str(dead), str(stale_cg)])
    assert live.exists() and unowned.exists() and live_cg.exists()
