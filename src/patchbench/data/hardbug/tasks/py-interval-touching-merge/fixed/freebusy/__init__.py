"""freebusy: half-open time intervals and a tiny free/busy calendar."""

from .calendar import Calendar, format_hhmm, parse_hhmm
from .interval import Interval
from .merge import coalesce, gaps

__all__ = ["Calendar", "Interval", "coalesce", "format_hhmm", "gaps", "parse_hhmm"]
