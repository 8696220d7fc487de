"""A room calendar working on ``HH:MM`` strings."""

from __future__ import annotations

from .interval import Interval
from .merge import coalesce, gaps

Slot = tuple[str, str]


def parse_hhmm(text: str) -> int:
    """``"HH:MM"`` (``00:00`` to ``24:00``) to minutes since midnight."""
    hours, sep, minutes = text.strip().partition(":")
    if not sep or not hours.isdigit() or len(minutes) != 2 or not minutes.isdigit():
        raise ValueError(f"expected HH:MM, got {text!r}")
    value = int(hours) * 60 + int(minutes)
    if int(minutes) >= 60 or value > 24 * 60:
        raise ValueError(f"not a time of day: {text!r}")
    return value


def format_hhmm(minutes: int) -> str:
    return f"{minutes // 60:02d}:{minutes % 60:02d}"


def _interval(start: str, end: str) -> Interval:
    return Interval(parse_hhmm(start), parse_hhmm(end))


def _slots(intervals: list[Interval]) -> list[Slot]:
    return [(format_hhmm(i.start), format_hhmm(i.end)) for i in intervals]


class Calendar:
    """Busy periods of one room for one day."""

    def __init__(self) -> None:
        self._busy: list[Interval] = []

    def add_busy(self, start: str, end: str) -> None:
        self._busy.append(_interval(start, end))

    def busy_blocks(self) -> list[Slot]:
        """The maximal busy periods, in order."""
        return _slots(coalesce(self._busy))

    def free_slots(self, day_start: str, day_end: str, min_minutes: int = 1) -> list[Slot]:
        """Free gaps inside ``[day_start, day_end)`` lasting at least ``min_minutes``."""
        return _slots(gaps(self._busy, _interval(day_start, day_end), min_minutes))

    def is_free(self, start: str, end: str) -> bool:
        """True when no booking shares a minute with ``[start, end)``."""
        wanted = _interval(start, end)
        return not any(wanted.overlaps(busy) for busy in self._busy)

    def covers(self, start: str, end: str) -> bool:
        """True when the room is busy during every minute of ``[start, end)``."""
        wanted = _interval(start, end)
        return any(block.contains(wanted) for block in coalesce(self._busy))
