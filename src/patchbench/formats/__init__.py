"""Dataset formats: one module per on-disk format, each with read() and write(); detect() picks one."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from ..errors import DatasetError
from ..task import Task
from ._base import Format, Loaded
from .harbor import HarborDirFormat, HarborParquetFormat
from .hardbug import HardBugRowsFormat, HardBugTasksFormat
from .patchbench import PatchBenchFormat

#: Every format, in detection order (most specific first).
FORMATS: dict[str, Format] = {
    f.name: f
    for f in (
        HardBugTasksFormat(),
        HarborDirFormat(),
        PatchBenchFormat(),
        HarborParquetFormat(),
        HardBugRowsFormat(),
    )
}


def get_format(name: str) -> Format:
    """A format by name.

    Raises:
        DatasetError: unknown name (the message lists the known ones).
    """
    try:
        return FORMATS[name]
    except KeyError:
        raise DatasetError(f"unknown format {name!r} (known: {', '.join(FORMATS)})") from None


def detect(path: str | Path) -> Format:
    """The format of the dataset at ``path``.

    Raises:
        DatasetError: the path does not exist or matches no format.
    """
    p = Path(path)
    if not p.exists():
        raise DatasetError("no such file or directory", source=str(p))
    for f in FORMATS.values():
        if f.detect(p):
            return f
    raise DatasetError("not a dataset in any known format (" + ", ".join(FORMATS) + ")", source=str(p))


def read(path: str | Path, format: str | None = None) -> Loaded:
    """Read every task at ``path``, detecting the format unless one is named."""
    p = Path(path)
    fmt = get_format(format) if format else detect(p)
    return fmt.read(p)


def write(tasks: Sequence[Task], path: str | Path, format: str) -> None:
    """Write ``tasks`` to ``path`` in the named format."""
    get_format(format).write(tasks, Path(path))


__all__ = ["FORMATS", "Format", "Loaded", "detect", "get_format", "read", "write"]
