"""A half-open interval of integer minutes."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, order=True)
class Interval:
    """``[start, end)`` in minutes; ``start < end`` always holds."""

    start: int
    end: int

    def __post_init__(self) -> None:
        if self.start >= self.end:
            raise ValueError(f"empty or reversed interval [{self.start}, {self.end})")

    @property
    def minutes(self) -> int:
        return self.end - self.start

    def overlaps(self, other: Interval) -> bool:
        """True when the two intervals share at least one minute."""
        return self.start < other.end and other.start < self.end

    def contains(self, other: Interval) -> bool:
        """True when every minute of ``other`` lies in this interval."""
        return self.start <= other.start and other.end <= self.end
