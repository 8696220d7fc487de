"""Code that runs inside the sandbox, shipped as files and never imported by the host.

Each module here is copied into a run (read with :func:`script`) and executed by the task's own interpreter
there; the host only reads what it leaves behind, as untrusted input.
"""

from __future__ import annotations

from importlib import resources

__all__ = ["script"]


def script(name: str) -> str:
    """The source of the sandboxed script ``name`` (a file of this package, e.g. ``repair_collect.py``)."""
    return resources.files(__name__).joinpath(name).read_text(encoding="utf-8")
