"""Operations on collections of intervals."""

from __future__ import annotations

from collections.abc import Iterable

from .interval import Interval


def coalesce(intervals: Iterable[Interval]) -> list[Interval]:
    """Merge ``intervals`` into the sorted list of maximal disjoint blocks."""
    blocks: list[Interval] = []
    for interval in sorted(intervals):
        if blocks and interval.start <= blocks[-1].end:
            last = blocks[-1]
            blocks[-1] = Interval(last.start, max(last.end, interval.end))
        else:
            blocks.append(interval)
    return blocks


def gaps(blocks: Iterable[Interval], window: Interval, min_minutes: int = 1) -> list[Interval]:
    """The parts of ``window`` not covered by ``blocks``, at least ``min_minutes`` long."""
    free: list[Interval] = []
    cursor = window.start
    for block in coalesce(blocks):
        if block.end <= cursor:
            continue
        if block.start >= window.end:
            break
        if block.start - cursor >= max(min_minutes, 1):
            free.append(Interval(cursor, block.start))
        cursor = max(cursor, block.end)
    if window.end - cursor >= max(min_minutes, 1):
        free.append(Interval(cursor, window.end))
    return free
