"""ssefeed: an incremental text/event-stream parser."""

from .lines import LineDecoder
from .parser import Event, EventStreamParser, iter_events

__all__ = ["Event", "EventStreamParser", "LineDecoder", "iter_events"]
