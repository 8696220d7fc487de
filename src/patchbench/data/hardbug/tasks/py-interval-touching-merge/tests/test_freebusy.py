"""Hidden tests for freebusy."""

from __future__ import annotations

import pytest
from freebusy import Calendar, Interval, coalesce, format_hhmm, parse_hhmm


def iv(*pairs: tuple[int, int]) -> list[Interval]:
    return [Interval(s, e) for s, e in pairs]


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        (iv((0, 10), (5, 20), (30, 40)), iv((0, 20), (30, 40))),
        (iv((20, 30), (0, 10), (10, 20), (40, 50)), iv((0, 30), (40, 50))),
        (iv((50, 60), (0, 100), (10, 20)), iv((0, 100))),
        (iv((0, 10), (11, 20), (21, 22)), iv((0, 10), (11, 20), (21, 22))),
    ],
    ids=["overlapping", "back-to-back", "contained-unsorted", "one-minute-gaps"],
)
def test_merge_blocks(given, expected):
    assert coalesce(given) == expected


def test_interval_rules():
    with pytest.raises(ValueError):
        Interval(10, 10)
    with pytest.raises(ValueError):
        Interval(10, 5)
    a, b = Interval(0, 10), Interval(10, 20)
    assert not a.overlaps(b) and not b.overlaps(a)
    assert a.overlaps(Interval(9, 11))
    assert Interval(0, 20).contains(b) and not a.contains(Interval(5, 11))


def test_hhmm_round_trip():
    assert parse_hhmm("09:30") == 570
    assert parse_hhmm("24:00") == 1440
    assert format_hhmm(570) == "09:30"
    for bad in ["9", "09:60", "24:01", "ab:cd", "09:5"]:
        with pytest.raises(ValueError):
            parse_hhmm(bad)


class TestCalendar:
    def make(self, *bookings: tuple[str, str]) -> Calendar:
        room = Calendar()
        for start, end in bookings:
            room.add_busy(start, end)
        return room

    def test_back_to_back_meetings_form_one_block(self):
        room = self.make(("10:00", "11:30"), ("09:00", "10:00"), ("13:00", "14:00"), ("14:00", "14:30"))
        assert room.busy_blocks() == [("09:00", "11:30"), ("13:00", "14:30")]

    def test_covers_span_across_back_to_back_meetings(self):
        room = self.make(("09:00", "10:00"), ("10:00", "11:30"), ("12:00", "13:00"))
        assert room.covers("09:45", "10:15")
        assert room.covers("09:00", "11:30")
        assert not room.covers("11:00", "12:30")
        assert not room.covers("08:59", "09:30")

    def test_free_slots(self):
        room = self.make(("09:00", "10:00"), ("10:00", "11:30"), ("11:45", "12:00"), ("17:00", "19:00"))
        assert room.free_slots("08:00", "18:00") == [
            ("08:00", "09:00"),
            ("11:30", "11:45"),
            ("12:00", "17:00"),
        ]
        assert room.free_slots("08:00", "18:00", min_minutes=30) == [("08:00", "09:00"), ("12:00", "17:00")]

    def test_is_free_allows_touching_bookings(self):
        room = self.make(("09:00", "10:00"), ("11:00", "12:00"))
        assert room.is_free("10:00", "11:00")
        assert not room.is_free("09:59", "10:30")
        assert not room.is_free("10:30", "11:01")
        assert room.covers("09:00", "10:00") and not room.covers("09:00", "10:01")
