"""patchbench (harness-owned): has the TAP channel been intercepted since the interpreter started?"""

import builtins
import io
import os
import sys


def _fd(n):
    try:
        st = os.fstat(n)
        return (st.st_dev, st.st_ino)
    except OSError:
        return None


_PRINT = builtins.print
_FD1 = _fd(1)


def tampered():
    """What now stands between the tests and fd 1 that did not at start-up (nothing when unsure)."""
    out = []
    try:
        if builtins.print is not _PRINT:
            out.append("print replaced")
        if _FD1 is not None and _fd(1) != _FD1:
            out.append("fd 1 replaced")
        # a harness may re-wrap fd 1 (another encoding); anything but the plain io stack on fd 1 may not
        stream = sys.stdout
        buffer = getattr(stream, "buffer", None)
        # unbuffered (python -u, PYTHONUNBUFFERED) the text layer sits right on the FileIO
        raw = buffer if type(buffer) is io.FileIO else getattr(buffer, "raw", None)
        if (
            type(stream) is not io.TextIOWrapper
            or type(buffer) not in (io.BufferedWriter, io.FileIO)
            or type(raw) is not io.FileIO
            or raw.fileno() != 1
        ):
            out.append("sys.stdout is not the plain text stream on fd 1")
    except Exception:
        return []
    return out
