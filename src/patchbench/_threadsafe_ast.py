"""``ast.parse`` made safe to call from several threads at once on CPython releases that are not.

CPython 3.11 before 3.11.8 (and 3.12.0) keeps the recursion depth of the AST converter in per-interpreter
state that every thread shares (python/cpython#106905): two threads parsing at once can raise
``SystemError: AST constructor recursion depth mismatch``. patchbench parses Python in worker threads
(planting the canary's controls while runs go on in parallel; ``make test`` met it once in a validation
run), so on those releases :func:`install` puts ``ast.parse`` behind one process-wide lock. It is
installed once, at import of the package; elsewhere it changes nothing.
"""

from __future__ import annotations

import ast
import sys
import threading
from typing import Any

_LOCK = threading.RLock()
_AFFECTED = sys.implementation.name == "cpython" and (
    (sys.version_info[:2] == (3, 11) and sys.version_info < (3, 11, 8)) or sys.version_info[:3] == (3, 12, 0)
)


def install() -> None:
    """Wrap ``ast.parse`` in the lock (once; on an affected release only)."""
    if not _AFFECTED or getattr(ast.parse, "_patchbench_locked", False):
        return
    parse = ast.parse

    def locked_parse(*args: Any, **kwargs: Any) -> Any:
        with _LOCK:
            return parse(*args, **kwargs)

    locked_parse._patchbench_locked = True  # type: ignore[attr-defined]
    locked_parse.__doc__ = parse.__doc__
    ast.parse = locked_parse


install()
