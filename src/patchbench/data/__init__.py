"""Built-in datasets shipped with the package (the embedded default)."""

from __future__ import annotations

from pathlib import Path

#: Names accepted in place of a dataset path for the built-in dataset.
BUILTIN_NAMES = ("builtin", "builtin:hardbug")


def builtin_path(name: str = "hardbug") -> Path:
    """The directory of a built-in dataset (``hardbug``: the HardBug source layout)."""
    return Path(__file__).resolve().parent / name
