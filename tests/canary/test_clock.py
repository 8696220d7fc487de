"""The clock library Rust runs preload (patchbench.canary._native.clock_library, sandboxed/pb_clock.c)."""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from patchbench.canary._native import CLOCK_LIBRARY, _clock, clock_library

pytestmark = pytest.mark.skipif(
    shutil.which("cc") is None and shutil.which("gcc") is None, reason="no C compiler"
)

#: Reads each clock, advances the calling thread's clocks by an hour, reads them again there and on a
#: thread of its own (ctypes reaches the preloaded library as a Rust copy does, through dlsym).
_PROBE = """
import ctypes, threading, time
def read():
    return time.monotonic(), time.time(), time.clock_gettime(time.CLOCK_BOOTTIME)
before = read()
ctypes.CDLL(None).patchbench_clock_advance(ctypes.c_int64(3600 * 10**9))
after = read()
other = []
t = threading.Thread(target=lambda: other.append(read()))
t.start(); t.join()
print([round(a - b) for a, b in zip(after, before)], [round(a - b) for a, b in zip(other[0], before)])
"""


def test_the_library_moves_the_calling_threads_clocks_only(tmp_path: Path) -> None:
    lib = clock_library()
    assert lib is not None and lib.startswith(b"\x7fELF")
    path = tmp_path / CLOCK_LIBRARY
    path.write_bytes(lib)
    done = subprocess.run(
        [sys.executable, "-c", _PROBE],
        env={"LD_PRELOAD": str(path), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    # monotonic, wall and boot clocks an hour on where the advance was asked; another thread: untouched
    assert done.stdout.split("\n")[0] == "[3600, 3600, 3600] [0, 0, 0]"


def test_without_an_advance_the_clocks_read_as_ever(tmp_path: Path) -> None:
    lib = clock_library()
    assert lib is not None
    (tmp_path / CLOCK_LIBRARY).write_bytes(lib)
    code = (
        "import time; a = time.monotonic(); b = time.monotonic(); "
        "print(0 <= b - a < 1, abs(time.time() - %r) < 60)"
    )
    done = subprocess.run(
        [sys.executable, "-c", code % time.time()],
        env={"LD_PRELOAD": str(tmp_path / CLOCK_LIBRARY), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert done.stdout.strip() == "True True"


def test_the_rust_canary_gets_the_library_as_a_harness_file_and_preloads_it() -> None:
    files, env = _clock("/pb-harness")
    assert set(files) == {CLOCK_LIBRARY} and env == {"LD_PRELOAD": f"/pb-harness/{CLOCK_LIBRARY}"}
    assert _clock("") == ({}, {})  # no harness directory, nothing to preload
