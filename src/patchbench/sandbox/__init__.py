"""Sandboxes: where untrusted test commands run. ``bwrap`` by default, ``none`` only when asked."""

from __future__ import annotations

from ..errors import InputError
from ._base import Bind, ExecRequest, ExecResult, Guarantees, Limits, Sandbox
from .bwrap import BwrapSandbox
from .process import ProcessSandbox

BACKENDS: dict[str, type[Sandbox]] = {"bwrap": BwrapSandbox, "none": ProcessSandbox}


def get_sandbox(name: str = "bwrap") -> Sandbox:
    """A sandbox backend by name (``bwrap`` or ``none``).

    Raises:
        InputError: unknown name.
        SandboxError: the backend cannot run on this machine.
    """
    try:
        cls = BACKENDS[name]
    except KeyError:
        raise InputError(f"unknown sandbox {name!r} (known: {', '.join(BACKENDS)})") from None
    sb = cls()
    sb.check()
    return sb


__all__ = [
    "BACKENDS",
    "Bind",
    "BwrapSandbox",
    "ExecRequest",
    "ExecResult",
    "Guarantees",
    "Limits",
    "ProcessSandbox",
    "Sandbox",
    "get_sandbox",
]
