"""The clock library a native or Python run preloads for its *aged* controls (``sandboxed/pb_clock.c``).

An aged control (:data:`._decoys.AGED`) makes hours pass before each statement of a copied test, so code
right only while an object (or the process) is seconds old meets an old one. node serves its clocks from
the integrity module and Go runs the copy in a ``testing/synctest`` bubble; Rust and Python read the C
library's clocks, so their runs preload a small library (``LD_PRELOAD``) whose ``clock_gettime``,
``gettimeofday`` and ``time`` add the calling thread's advance, and whose
``patchbench_clock_advance(ns)`` a copy finds by ``dlsym`` (Rust) or ``ctypes`` (Python) and calls. It is
built by the host's C compiler once per process and planted read-only in the harness directory, only in a
run that plants an aged copy.
"""

from __future__ import annotations

import functools
import logging
import posixpath
import shutil
import subprocess
import tempfile
from collections.abc import Mapping
from pathlib import Path

from ..sandboxed import script

log = logging.getLogger(__name__)

#: The library's file name in the harness directory.
CLOCK_LIBRARY = "pb_clock.so"
#: The function an aged copy calls (the nanoseconds its thread's clocks move on), and the one a Python copy
#: calls when it ends (its thread's clocks back to the C library's: later tests run on that thread).
ADVANCE_SYMBOL = "patchbench_clock_advance"
RESET_SYMBOL = "patchbench_clock_reset"


@functools.cache
def clock_library() -> bytes | None:
    """``sandboxed/pb_clock.c`` built by the host's C compiler, once per process (a tenth of a second);
    None without a compiler or when it fails (aged controls then run on the real clocks)."""
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        return None
    with tempfile.TemporaryDirectory(prefix="patchbench-clock-") as tmp:
        src, out = Path(tmp) / "pb_clock.c", Path(tmp) / CLOCK_LIBRARY
        src.write_text(script("pb_clock.c"), encoding="utf-8")
        try:
            subprocess.run(
                [cc, "-shared", "-fPIC", "-O2", "-o", str(out), str(src)],
                check=True,
                capture_output=True,
                timeout=120,
            )
            return out.read_bytes()
        except (OSError, subprocess.SubprocessError) as e:
            log.warning("the clock library did not build (%s): aged controls use the real clocks", e)
            return None


def clock_files(harness: str, planted: Mapping[str, str]) -> tuple[dict[str, str | bytes], dict[str, str]]:
    """The library as a harness file and the variable preloading it, when a file of ``planted`` holds an
    aged copy (none without a harness directory or a library)."""
    if not harness or not any(ADVANCE_SYMBOL in text for text in planted.values()):
        return {}, {}
    lib = clock_library()
    if lib is None:
        return {}, {}
    return {CLOCK_LIBRARY: lib}, {"LD_PRELOAD": posixpath.join(harness, CLOCK_LIBRARY)}
