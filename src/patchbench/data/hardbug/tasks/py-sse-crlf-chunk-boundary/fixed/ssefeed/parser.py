"""Event-stream field interpretation and event dispatch."""

from __future__ import annotations

import codecs
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from .lines import LineDecoder


@dataclass(frozen=True)
class Event:
    """One dispatched event."""

    data: str
    type: str = "message"
    id: str = ""


class EventStreamParser:
    """Feed decoded text chunks in order; get back the events they complete."""

    def __init__(self) -> None:
        self._lines = LineDecoder()
        self._data: list[str] = []
        self._type = ""
        self.last_event_id = ""
        self.retry: int | None = None

    def feed(self, chunk: str) -> list[Event]:
        events = []
        for line in self._lines.feed(chunk):
            event = self._process(line)
            if event is not None:
                events.append(event)
        return events

    def close(self) -> None:
        """End of stream: an event not yet terminated by a blank line is dropped."""
        for line in self._lines.flush():
            self._process(line)
        self._data = []
        self._type = ""

    def _process(self, line: str) -> Event | None:
        if not line:
            return self._dispatch()
        if line.startswith(":"):
            return None
        name, colon, value = line.partition(":")
        if colon and value.startswith(" "):
            value = value[1:]
        if name == "data":
            self._data.append(value)
        elif name == "event":
            self._type = value
        elif name == "id" and "\x00" not in value:
            self.last_event_id = value
        elif name == "retry" and value.isascii() and value.isdigit():
            self.retry = int(value)
        return None

    def _dispatch(self) -> Event | None:
        data, event_type = self._data, self._type
        self._data, self._type = [], ""
        if not data:
            return None
        return Event(data="\n".join(data), type=event_type or "message", id=self.last_event_id)


def iter_events(chunks: Iterable[str | bytes]) -> Iterator[Event]:
    """Parse a whole stream given as ``str`` or UTF-8 ``bytes`` chunks."""
    parser = EventStreamParser()
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    at_start = True
    for chunk in chunks:
        text = decoder.decode(chunk) if isinstance(chunk, bytes) else chunk
        if at_start and text:
            text = text.removeprefix("\ufeff")
            at_start = False
        yield from parser.feed(text)
    yield from parser.feed(decoder.decode(b"", final=True))
    parser.close()
