"""Text helpers: the comparison key of a tag and its display spelling."""

from __future__ import annotations

import re
import unicodedata

_SEPARATORS = re.compile(r"[\s_\-]+")
_SPACES = re.compile(r"\s+")


def strip_marks(text: str) -> str:
    """Remove combining marks (accents, cedillas, umlauts...) from ``text``."""
    return "".join(ch for ch in text if not unicodedata.combining(ch))


def fold(text: str) -> str:
    """The key two tags are compared by.

    Marks are removed first, then compatibility variants are unified (NFKC),
    then the text is case folded and runs of separators become one ``-``.
    """
    text = strip_marks(text)
    text = unicodedata.normalize("NFKC", text).casefold()
    return _SEPARATORS.sub("-", text).strip("-")


def display_form(text: str) -> str:
    """How a tag is shown: NFC, trimmed, inner whitespace collapsed to one space."""
    return _SPACES.sub(" ", unicodedata.normalize("NFC", text)).strip()
