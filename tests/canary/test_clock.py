"""The clock library Rust and Python runs preload (patchbench.canary._clock, sandboxed/pb_clock.c)."""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from patchbench.canary._clock import CLOCK_LIBRARY, clock_files, clock_library

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
# in minutes: a loaded machine may take a second or more to start the thread (make test, 2026-12-06)
minutes = lambda xs: [round((a - b) / 60) for a, b in zip(xs, before)]
print(minutes(after), minutes(other[0]))
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
    # monotonic, wall and boot clocks an hour (60 minutes) on where the advance was asked; another
    # thread: untouched
    assert done.stdout.split("\n")[0] == "[60, 60, 60] [0, 0, 0]"


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


def test_a_run_gets_the_library_and_preloads_it_only_where_an_aged_copy_is_planted() -> None:
    aged = {"tests/t.rs": 'let p = dlsym(.., b"patchbench_clock_advance\\0" ..);'}
    files, env = clock_files("/pb-harness", aged)
    assert set(files) == {CLOCK_LIBRARY} and env == {"LD_PRELOAD": f"/pb-harness/{CLOCK_LIBRARY}"}
    assert clock_files("/pb-harness", {"tests/t.rs": "fn t() {}"}) == ({}, {})  # no aged copy
    assert clock_files("", aged) == ({}, {})  # no harness directory, nothing to preload


def test_a_python_aged_copy_sees_hours_pass_and_leaves_its_thread_on_the_real_clock(tmp_path: Path) -> None:
    """Python's *aged* (round sixteen's clock family): a step before each statement moves the thread's
    clocks on by the shift's hours (through ctypes), and the copy ends by putting them back, so a later test
    on the same thread (pytest runs them all on one) reads the real clock."""
    import ast

    from patchbench.canary._probing import INPUT_SHIFT
    from patchbench.canary._structure_py import aged, aged_reset

    lib = clock_library()
    assert lib is not None
    (tmp_path / CLOCK_LIBRARY).write_bytes(lib)
    body = ast.parse(
        "t0 = time.monotonic()\nfor i in range(2):\n    x = i\nelapsed = time.monotonic() - t0\n"
        "seen.append(round(elapsed / 3600))"
    ).body
    token = INPUT_SHIFT.set(13)
    try:
        aged(body)
    finally:
        INPUT_SHIFT.reset(token)
    copy = ast.unparse(ast.Module(body=aged_reset(body), type_ignores=[]))
    assert copy.startswith("try:") and "finally:" in copy
    code = (
        "import time\nseen = []\nstart = time.monotonic()\n"
        + copy
        + "\nprint(seen[0], round(time.monotonic() - start))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        env={"LD_PRELOAD": str(tmp_path / CLOCK_LIBRARY), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    # between t0 and elapsed: a step before the loop, one in each of its two turns, one before elapsed's
    # statement: 4 x 13 hours; back on the real clock after the copy
    assert done.stdout.split() == ["52", "0"]
    # without the library (another harness), the steps do nothing
    plain = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    assert plain.stdout.split() == ["0", "0"]
