"""Built-in datasets shipped with the package (the embedded default).

``builtin`` is the union of every built-in dataset: ``hardbug`` (the HardBug source layout: original tasks
in Python, JavaScript, TypeScript, Go, Java, Rust and SQL) and ``patchbench`` (PatchBench rows run against a repository bundled as a git bundle).
Each can be loaded alone as ``builtin:<name>``.
"""

from __future__ import annotations

from pathlib import Path

#: The built-in datasets, by name, in loading order.
BUILTIN_DATASETS = ("hardbug", "patchbench")
#: Names accepted in place of a dataset path for the built-in dataset (all of it, or one part).
BUILTIN_NAMES = ("builtin", *(f"builtin:{n}" for n in BUILTIN_DATASETS))


def builtin_path(name: str = "hardbug") -> Path:
    """The directory of one built-in dataset (``hardbug`` or ``patchbench``)."""
    return Path(__file__).resolve().parent / name
