"""Split an ordered collection into numbered pages for list views and API responses.

A short trailing page looks odd in a listing, so a paginator can be given an
``orphans`` allowance: when the items left over for the last page number
``orphans`` or fewer, they are shown at the end of the previous page instead.
Pages are numbered from 1; an empty collection has a single empty page.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Generic, Iterator, Sequence, TypeVar

T = TypeVar("T")


class PageOutOfRange(LookupError):
    """Raised for a page number below 1 or above the last page."""


@dataclass(frozen=True)
class Page(Generic[T]):
    number: int
    items: Sequence[T]
    first_index: int
    """1-based position of the first item in the whole collection (0 on an empty page)."""
    last_index: int
    """1-based position of the last item (0 on an empty page)."""
    has_next: bool

    @property
    def has_previous(self) -> bool:
        return self.number > 1


class Paginator(Generic[T]):
    def __init__(self, items: Sequence[T], per_page: int, orphans: int = 0) -> None:
        if per_page < 1:
            raise ValueError("per_page must be at least 1")
        if not 0 <= orphans < per_page:
            raise ValueError("orphans must be between 0 and per_page - 1")
        self.items = items
        self.per_page = per_page
        self.orphans = orphans

    @property
    def count(self) -> int:
        return len(self.items)

    @property
    def num_pages(self) -> int:
        """How many pages the collection fills, after folding a short last page into its neighbour."""
        full, rest = divmod(self.count, self.per_page)
        if full == 0:
            return 1
        if rest >= self.orphans:
            return full + 1
        return full

    def page_range(self) -> range:
        return range(1, self.num_pages + 1)

    def page(self, number: int) -> Page[T]:
        last = self.num_pages
        if not 1 <= number <= last:
            raise PageOutOfRange(f"page {number} is not between 1 and {last}")
        start = (number - 1) * self.per_page
        stop = self.count if number == last else start + self.per_page
        chunk = self.items[start:stop]
        if not chunk:
            return Page(number, chunk, 0, 0, False)
        return Page(number, chunk, start + 1, stop, number < last)

    def get_page(self, value: object) -> Page[T]:
        """The page a query-string value names: a number, or "last"; anything unusable gives page 1."""
        if isinstance(value, str) and value.strip().lower() == "last":
            return self.page(self.num_pages)
        try:
            number = int(str(value).strip())
        except ValueError:
            return self.page(1)
        return self.page(min(max(number, 1), self.num_pages))

    def __iter__(self) -> Iterator[Page[T]]:
        for number in self.page_range():
            yield self.page(number)
