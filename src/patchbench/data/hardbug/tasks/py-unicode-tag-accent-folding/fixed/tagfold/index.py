"""An index of tags keyed by their folded form."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator

from .text import display_form, fold


class TagIndex:
    """Keeps one display spelling per tag (the first one seen) and a usage count."""

    def __init__(self, tags: Iterable[str] = ()) -> None:
        self._spelling: dict[str, str] = {}
        self._uses: Counter[str] = Counter()
        for tag in tags:
            self.add(tag)

    def add(self, tag: str) -> str:
        """Record one use of ``tag`` and return the spelling it is filed under.

        Raises:
            ValueError: the tag is empty once folded (only spaces or separators).
        """
        key = fold(tag)
        if not key:
            raise ValueError(f"empty tag: {tag!r}")
        self._spelling.setdefault(key, display_form(tag))
        self._uses[key] += 1
        return self._spelling[key]

    def remove(self, tag: str) -> bool:
        """Forget ``tag`` entirely; returns whether it was known."""
        key = fold(tag)
        self._uses.pop(key, None)
        return self._spelling.pop(key, None) is not None

    def uses(self, tag: str) -> int:
        """How many times ``tag`` (in any equivalent spelling) was added."""
        return self._uses.get(fold(tag), 0)

    def find(self, query: str, limit: int = 10) -> list[str]:
        """Tags whose folded form starts with the folded query, most used first."""
        prefix = fold(query)
        hits = [key for key in self._spelling if key.startswith(prefix)]
        hits.sort(key=lambda key: (-self._uses[key], self._spelling[key]))
        return [self._spelling[key] for key in hits[:limit]]

    def __contains__(self, tag: object) -> bool:
        return isinstance(tag, str) and fold(tag) in self._spelling

    def __iter__(self) -> Iterator[str]:
        return iter(sorted(self._spelling.values()))

    def __len__(self) -> int:
        return len(self._spelling)
