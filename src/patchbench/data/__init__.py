"""Built-in datasets shipped with the package (the embedded default).

``builtin`` is the union of ``hardbug`` (the HardBug source layout: original tasks in Python, JavaScript,
TypeScript, Go, Java, Rust and SQL) and ``patchbench`` (PatchBench rows run against a repository shipped
as a git bundle). Each can be loaded alone as ``builtin:<name>``; ``builtin:harbor`` (Harbor tasks with
seed-000/003-style verifiers, some of them lying on purpose) only that way.
"""

from __future__ import annotations

from pathlib import Path

#: The built-in datasets that make up ``builtin``, in loading order: every task in them resolves with gold
#: and fails without it.
BUILTIN_DATASETS = ("hardbug", "patchbench")
#: Built-in datasets loaded only by name: ``harbor`` holds Harbor tasks whose original verifiers lie on
#: purpose (seed 000/003 style), material for ``audit`` and ``repair``.
BUILTIN_EXTRA = ("harbor",)
#: Names accepted in place of a dataset path for the built-in dataset (all of it, or one part).
BUILTIN_NAMES = ("builtin", *(f"builtin:{n}" for n in (*BUILTIN_DATASETS, *BUILTIN_EXTRA)))


def builtin_path(name: str = "hardbug") -> Path:
    """The directory of one built-in dataset (``hardbug``, ``patchbench`` or ``harbor``)."""
    return Path(__file__).resolve().parent / name
