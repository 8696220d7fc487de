"""The format interface: each on-disk dataset format reads into Tasks and writes them back."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar

from ..errors import DatasetError
from ..task import Task


@dataclass
class Loaded:
    """What a reader produced.

    Attributes:
        tasks: every row that became a Task, in source order.
        errors: one DatasetError per row that could not (a batch never stops on one bad row).
        format: the reader's name.
        source: the path that was read.
    """

    tasks: list[Task] = field(default_factory=list)
    errors: list[DatasetError] = field(default_factory=list)
    format: str = ""
    source: str = ""


class Format:
    """One on-disk format. Subclasses set ``name`` and implement the three methods.

    ``detect`` must be cheap and must not raise; ``read`` raises DatasetError only when the whole source is
    unusable (unreadable file, wrong schema) and otherwise reports bad rows in ``Loaded.errors``.
    """

    name: ClassVar[str] = ""
    description: ClassVar[str] = ""

    def detect(self, path: Path) -> bool:
        """True when ``path`` looks like this format."""
        raise NotImplementedError

    def read(self, path: Path) -> Loaded:
        """Read every task at ``path``."""
        raise NotImplementedError

    def write(self, tasks: Sequence[Task], path: Path) -> None:
        """Write ``tasks`` to ``path`` in this format (a file or a directory, per format)."""
        raise NotImplementedError
