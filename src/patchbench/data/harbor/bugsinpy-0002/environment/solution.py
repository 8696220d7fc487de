"""A memoising decorator with a size bound (least recently used entries go first) and an optional
time-to-live, for expensive pure lookups such as price quotes or permission checks.

    @memoize(maxsize=256, ttl=30.0)
    def quote(symbol, *, currency="USD"): ...

Every call is keyed on its arguments; keyword arguments match whatever order they were passed in.
With ``typed=True`` arguments of different types (``1`` and ``1.0``) are cached separately.
"""

from __future__ import annotations

import functools
import threading
import time
from collections import OrderedDict
from typing import Any, Callable, Hashable, NamedTuple


class CacheInfo(NamedTuple):
    hits: int
    misses: int
    size: int
    maxsize: int


def call_key(args: tuple[Any, ...], kwargs: dict[str, Any], typed: bool = False) -> Hashable:
    """A hashable key that identifies one call's arguments."""
    key: tuple[Any, ...] = tuple(args)
    if kwargs:
        key += tuple(sorted(kwargs.items()))
    if typed:
        key += tuple(type(a) for a in args)
        key += tuple(type(v) for _, v in sorted(kwargs.items()))
    return key


def memoize(
    maxsize: int = 128,
    ttl: float | None = None,
    typed: bool = False,
    clock: Callable[[], float] = time.monotonic,
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    if maxsize < 1:
        raise ValueError("maxsize must be at least 1")
    if ttl is not None and ttl <= 0:
        raise ValueError("ttl must be positive")

    def decorate(func: Callable[..., Any]) -> Callable[..., Any]:
        entries: OrderedDict[Hashable, tuple[float | None, Any]] = OrderedDict()
        lock = threading.RLock()
        stats = {"hits": 0, "misses": 0}

        @functools.wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            key = call_key(args, kwargs, typed)
            now = clock()
            with lock:
                found = entries.get(key)
                if found is not None and (found[0] is None or now < found[0]):
                    entries.move_to_end(key)
                    stats["hits"] += 1
                    return found[1]
                entries.pop(key, None)
                stats["misses"] += 1
            value = func(*args, **kwargs)
            expires = None if ttl is None else now + ttl
            with lock:
                entries[key] = (expires, value)
                entries.move_to_end(key)
                while len(entries) > maxsize:
                    entries.popitem(last=False)
            return value

        def cache_info() -> CacheInfo:
            with lock:
                return CacheInfo(stats["hits"], stats["misses"], len(entries), maxsize)

        def cache_clear() -> None:
            with lock:
                entries.clear()
                stats["hits"] = stats["misses"] = 0

        def invalidate(*args: Any, **kwargs: Any) -> bool:
            """Forget the cached result of one call; True when there was one."""
            with lock:
                return entries.pop(call_key(args, kwargs, typed), None) is not None

        wrapper.cache_info = cache_info  # type: ignore[attr-defined]
        wrapper.cache_clear = cache_clear  # type: ignore[attr-defined]
        wrapper.invalidate = invalidate  # type: ignore[attr-defined]
        return wrapper

    return decorate
