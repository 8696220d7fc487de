"""Incremental splitting of text into lines."""

from __future__ import annotations

import re

# The longest alternative first, so that CRLF counts as one line ending.
_LINE_END = re.compile(r"\r\n|\r|\n")


class LineDecoder:
    """Turns a sequence of text chunks into complete lines.

    A line ends at CRLF, LF or a lone CR. Text after the last line ending is
    kept until more input (or :meth:`flush`) arrives.
    """

    def __init__(self) -> None:
        self._pending = ""

    def feed(self, chunk: str) -> list[str]:
        """Add ``chunk``; return the lines it completed, without their endings."""
        text = self._pending + chunk
        lines: list[str] = []
        start = 0
        for match in _LINE_END.finditer(text):
            lines.append(text[start : match.start()])
            start = match.end()
        self._pending = text[start:]
        return lines

    def flush(self) -> list[str]:
        """End of input: return the unterminated last line, if there is one."""
        rest, self._pending = self._pending, ""
        return [rest] if rest else []
